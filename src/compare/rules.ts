/**
 * The rules every verdict path shares (the stored baseline's, its re-measurement's and the same-box A/B's), each
 * stated once:
 *
 * - **Twice the limit.** A loss of more than twice the limit fails whatever the noise: a loss this large must
 *   never pass for noise. The same bound is what a pass must rule out: a band or interval wide enough to hide a
 *   loss of twice the limit cannot pass.
 * - **A flagged workload decides no speed.** A measurement flagged for not running the requested workload (short
 *   outputs, missing usage; bench/rounds/flags.ts) did not measure what the other side did: its regression or improvement
 *   on a speed metric becomes inconclusive, needing the workload, and what more rounds or launches were said to
 *   decide it no longer applies.
 * - **Does the run fail.** A regression fails the step unless `fail-on-regression` is off; a cell that could not be
 *   measured fails it unless `fail-on-error` is off. The action and the CLI's `compare` both ask this.
 */
import { isCeiling } from '../core/metrics.js'
import type { CellResult, CellVerdict, MetricVerdict, RunVerdict } from '../core/results.js'

/** Twice the limit: the loss that fails whatever the noise, and the one a pass must rule out. */
export function twiceTheLimit(limit: number): number {
  return 2 * limit
}

/** Whether a change for the worse (`worse`, a fraction or points, like `limit`) is past twice the limit. */
export function pastTwiceTheLimit(worse: number, limit: number): boolean {
  return worse > twiceTheLimit(limit)
}

/** The metric verdicts of a flagged measurement: every speed demoted, the failed-requests ceiling still judged. */
export function demoteSpeeds(metrics: CellVerdict['metrics']): void {
  for (const v of Object.values(metrics)) if (!isCeiling(v.metric)) demote(v)
}

/** What a flagged measurement's verdict says of its flags. */
export function flagNote(flags: readonly string[]): string {
  return `flagged (${flags.join(', ')}): speed not compared`
}

/** A metric verdict of a measurement that did not run the requested workload: a speed decides nothing. */
function demote(v: MetricVerdict): void {
  if (v.status !== 'regression' && v.status !== 'improvement') return
  v.status = 'inconclusive'
  v.needs = 'workload'
  delete v.moreRounds
  delete v.moreLaunches
}

export interface FailOn {
  failOnRegression: boolean
  failOnError: boolean
}

/** Why the run fails (regressions, cells that could not be measured), or undefined when it passes. */
export function runFailure(
  tally: { verdict: RunVerdict; regressions: number; crept?: number },
  cells: readonly CellResult[],
  failOn: FailOn,
): string | undefined {
  const errors = cells.filter((c) => c.verdict.status === 'error').length
  const reasons: string[] = []
  const crept = tally.crept ?? 0
  if (tally.verdict === 'regression' && failOn.failOnRegression) {
    if (tally.regressions > crept) reasons.push(`${tally.regressions - crept} cell(s) regressed`)
    if (crept) reasons.push(`${crept} cell(s) crept past the limit over several default-branch runs`)
  }
  if (errors && failOn.failOnError) reasons.push(`${errors} cell(s) could not be measured`)
  return reasons.length ? reasons.join('; ') : undefined
}
