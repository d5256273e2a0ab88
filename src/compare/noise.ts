/**
 * The noise model: how far apart two steady values can land by chance. Everything is relative to the baseline
 * value, so one rule serves tok/s and milliseconds.
 *
 * - Within-run spread s_w²: round-to-round variance pooled over the current cell's steady rounds and every
 *   baseline run's per-round samples, each about its own run's mean (degrees of freedom add up, so one run's
 *   two rounds do not decide alone).
 * - Between-run spread s_h²: variance of the history runs' steady values (two runs or more). It carries what
 *   rounds inside one run cannot show: restarts, warm versus fresh server state, thermal drift.
 * - One run's steady value (mean of k rounds) then varies by v = max(s_w²/k, s_h²).
 * - Current side: one run, v. Baseline side: the median of n runs, (π/2)·v/n (the median's large-sample
 *   variance, on the safe side for small n); a single baseline file, v.
 * - Band h = Z·√(current + baseline). A change beyond h is more than the noise of both sides explains.
 *
 * Z = 2 alone would find about 2 % of no-change comparisons significant; a regression also needs the change
 * beyond the limit (max-regression, min-delta) and a fresh re-measurement to agree. The seeded Monte-Carlo
 * test (test/compare/monte-carlo.test.ts) pins the combined rates down.
 */
import type { BaselineSample } from './baseline.js'
import { mean, relativeSquares, relativeVariance } from '../core/stats.js'

export const NOISE_Z = 2

/** Relative half-width of the noise band, or `undefined` when no side has two samples to show its spread. */
export function noiseBand(current: readonly number[], baseline: BaselineSample): number | undefined {
  let squares = 0
  let freedom = 0
  for (const run of [current, ...baseline.rounds]) {
    if (run.length < 2 || !(mean(run) > 0)) continue
    squares += relativeSquares(run)
    freedom += run.length - 1
  }
  const within = freedom > 0 ? squares / freedom : undefined
  const runs = baseline.steady.length
  const between = runs >= 2 && baseline.value > 0 ? relativeVariance(baseline.steady, baseline.value) : undefined
  if (within === undefined && between === undefined) return undefined

  const perRun = (rounds: number) => Math.max(within === undefined ? 0 : within / Math.max(rounds, 1), between ?? 0)
  const baselineRounds = baseline.rounds.length ? mean(baseline.rounds.map((r) => r.length)) : 1
  const currentVar = perRun(current.length)
  const baselineVar = runs >= 2 ? ((Math.PI / 2) * perRun(baselineRounds)) / runs : perRun(baselineRounds)
  return NOISE_Z * Math.sqrt(currentVar + baselineVar)
}
