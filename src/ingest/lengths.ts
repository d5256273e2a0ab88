/**
 * What another tool achieved against what was asked of it, over a cell's steady rounds. A command that ignores
 * the requested lengths, or outputs cut short (end of sequence honoured, a degenerate engine), measure another
 * workload than the cell says, and the `lengths-missed:` flag keeps the cell from passing as that workload: a
 * miss the baseline did not have fails it (compare/judge.ts). Lengths within 1 % of the request count as met:
 * tools report a per-request mean or spread, and random prompts re-tokenised by the server can gain or lose a
 * token. `engine: external` targets and `ingest` both check with this rule; our own client's exact per-request
 * counts are bench/rounds/flags.ts.
 */
import type { RoundResult } from '../core/measurements.js'

export const LENGTH_TOLERANCE = 0.01

type Range = { min: number; max: number }

function miss(what: 'prompt' | 'output', wanted: number | undefined, ranges: readonly Range[]): string[] {
  if (wanted === undefined || ranges.length === 0) return []
  // A fold, not Math.min(...): an --append-result file can hold tens of thousands of rounds.
  const min = ranges.reduce((m, r) => Math.min(m, r.min), Infinity)
  const max = ranges.reduce((m, r) => Math.max(m, r.max), -Infinity)
  if (min >= wanted * (1 - LENGTH_TOLERANCE) && max <= wanted * (1 + LENGTH_TOLERANCE)) return []
  const tokens = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1))
  const got = min === max ? tokens(min) : `${tokens(min)}-${tokens(max)}`
  return [`lengths-missed: ${what} ${got}/${wanted}`]
}

/** `lengths-missed: output 10/16` for each requested length the rounds missed; a length not given is not checked. */
export function lengthMisses(
  wanted: { inputTokens?: number; outputTokens?: number },
  achieved: readonly RoundResult['achieved'][],
): string[] {
  return [
    ...miss(
      'prompt',
      wanted.inputTokens,
      achieved.map((a) => a.promptTokens),
    ),
    ...miss(
      'output',
      wanted.outputTokens,
      achieved.map((a) => a.outputTokens),
    ),
  ]
}
