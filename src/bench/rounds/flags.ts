/**
 * Cell flags. Every flag makes the cell inconclusive, so only real workload problems raise
 * one: achieved lengths that miss the request, token counts the server did not report, and a
 * steady round where too many requests failed.
 */
import type { ScenarioPlan } from '../../core/plan.js'
import type { RequestRecord, RoundResult } from '../../core/measurements.js'

function spread(values: number[]): string {
  let min = Infinity
  let max = -Infinity
  for (const v of values) {
    if (v < min) min = v
    if (v > max) max = v
  }
  return min === max ? `${min}` : `${min}-${max}`
}

function lengthFlag(what: 'prompt' | 'output', values: number[], wanted: number): string | undefined {
  return values.some((v) => v !== wanted) ? `lengths-missed: ${what} ${spread(values)}/${wanted}` : undefined
}

/** Flags from the steady rounds and their requests. */
export function cellFlags(
  scenario: ScenarioPlan,
  rounds: readonly RoundResult[],
  steadyRequests: readonly RequestRecord[],
  maxErrorShare: number,
): string[] {
  const flags: string[] = []
  const ok = steadyRequests.filter((r) => r.ok)
  const counted = ok.filter((r) => r.usageReported)
  const unreported = ok.length - counted.length
  // Counts we made up ourselves are not "achieved lengths": usage-missing says it instead. A conversation's later
  // turns grow by what came before them: only its first turn is asked for `input-tokens`.
  const prompt = lengthFlag(
    'prompt',
    counted.filter((r) => (r.turn ?? 1) === 1).map((r) => r.promptTokens),
    scenario.inputTokens,
  )
  const output = lengthFlag(
    'output',
    counted.map((r) => r.outputTokens),
    scenario.outputTokens,
  )
  if (prompt) flags.push(prompt)
  if (output) flags.push(output)
  if (unreported > 0) flags.push(`usage-missing: ${unreported}/${ok.length} requests`)
  for (const round of rounds) {
    if (round.steady && round.requests > 0 && round.errors / round.requests > maxErrorShare) {
      flags.push(`errors: ${round.errors}/${round.requests} in round ${round.index + 1}`)
    }
  }
  return flags
}
