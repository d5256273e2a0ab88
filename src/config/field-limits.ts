/** Upper bounds of the matrix file's numbers, shared by the settings and the scenario schemas. */

/**
 * Upper bounds of the workload fields: past them a value is a typo or an attack, and would exhaust memory
 * (one prompt of 10⁹ tokens), file descriptors (25,000 sockets) or time before any request is sent.
 */
export const LIMITS = {
  inputTokens: 1_048_576,
  outputTokens: 131_072,
  concurrency: 4096,
  requests: 100_000,
  rate: 10_000,
  rounds: 100,
  abSetupChars: 4096,
  confirm: 10,
  probeMaxTokens: 1024,
  probeConcurrency: 64,
  abLaunches: 20,
  /** The data branch keeps a hundred default-branch runs (store/history-bounds.ts). */
  creepWindow: 100,
  sweepPoints: 32,
  /** Requests of one conversation (`turns`): each resends the whole conversation so far. */
  turns: 64,
} as const
