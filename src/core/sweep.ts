/**
 * Concurrency sweeps (docs/matrix-file.md, "Concurrency sweeps"): a scenario whose `concurrency` is a list becomes one
 * cell per value, its scenario id `<scenario>@c<N>` (`chat-1k@c4`). Scenario names never hold `@` (core/fields.ts
 * `ID_PATTERN`), so the suffix is unambiguous: config builds the ids with `sweepPointId`, and the report and the store
 * read a sweep's points back from any cell id with `sweepPoint`, including ids of baselines and history entries.
 */

const SUFFIX = /@c([1-9][0-9]*)$/

/** `chat-1k`, 4 → `chat-1k@c4`. */
export function sweepPointId(scenario: string, concurrency: number): string {
  return `${scenario}@c${concurrency}`
}

export interface SweepPoint {
  /** The id without the suffix: the scenario the sweep was written as (`chat-1k`), or its cell's (`qwen-fp8/chat-1k`). */
  base: string
  concurrency: number
}

/** The sweep point a scenario id (`chat-1k@c4`) or a cell id (`qwen-fp8/chat-1k@c4`) names; undefined for any other id. */
export function sweepPoint(id: string): SweepPoint | undefined {
  const match = SUFFIX.exec(id)
  if (!match) return undefined
  return { base: id.slice(0, match.index), concurrency: Number(match[1]) }
}

/** The id with a sweep point's suffix taken off (`qwen-fp8/chat-1k@c4` → `qwen-fp8/chat-1k`); any other id as it is. */
export function withoutSweepPoint(id: string): string {
  return sweepPoint(id)?.base ?? id
}
