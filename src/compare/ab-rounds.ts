/**
 * How many warm rounds a cell measures on each launch of a same-box A/B (pure).
 *
 * A launch's figure is level × (1 + launch offset + the mean of its k warm rounds' errors): its variance is
 * σ_L² + σ_w²/k, and it costs c_L + k·c_w — c_L what a launch costs before its warm rounds (start-up, the cold round
 * it discards), c_w one warm round. The information per unit of engine time, 1 / ((σ_L² + σ_w²/k)(c_L + k·c_w)), is
 * largest at k* = (σ_w / σ_L)·√(c_L / c_w): the optimum allocation of two-stage sampling (Cochran, "Sampling
 * Techniques", 3rd ed., §10.6, m_opt = (S₂/S₁)·√(c₁/c₂)). So a box whose launches are cheap and whose rounds agree
 * spends its time on launches, the noise an A/B must average; one that takes minutes to load a model measures
 * more rounds on each. σ_L is the `noise-floor`, or the launch spread main's history measured where larger; σ_w
 * each gated metric's round-to-round spread and c_L, c_w the durations, all from the PR's own measurement of the
 * cell on this box, before the A/B starts; both arms measure the same k, so their rounds pair on the same prompts.
 *
 * Then, within a launch (`abMoreRounds`), warm rounds are added while the round-to-round part of a gated metric's
 * launch error still exceeds the launch-to-launch spread assumed.
 */
import { GATED_METRICS, isRelative, readMetric } from '../core/metrics.js'
import type { GateConfig } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import { mean, relativeSquares } from '../core/stats.js'
import { launchSe, launchSpreadOf } from './ab-cell.js'
import { steadyRounds } from './baseline.js'
import { gatedStat } from './judge.js'

/**
 * Warm rounds each A/B launch measures of the cell, from the PR's own measurement of it (see the header): k*
 * rounded up, at least 1 and at most `most` (the cell's own warm rounds); `most` when the measurement cannot say
 * (one warm round, no durations, no floor).
 */
export function abWarmRounds(measured: CellResult, gate: GateConfig, noiseFloor: number, most: number): number {
  const steady = measured.rounds.filter((r) => r.steady)
  if (noiseFloor <= 0 || steady.length < 2 || most <= 1) return Math.max(1, most)
  // The largest ratio of round-to-round to launch-to-launch spread over the gated metrics, each metric's launch
  // spread the floor or what main measured where larger (ab-cell.ts launchSpreadOf).
  let ratio = 0
  for (const metric of GATED_METRICS) {
    const stat = gatedStat(gate, metric)
    if (stat === undefined || !isRelative(metric)) continue
    const values = steadyRounds(measured, metric, stat)
    if (values.length < 2 || !(mean(values) > 0)) continue
    const within = Math.sqrt(relativeSquares(values) / (values.length - 1))
    ratio = Math.max(ratio, within / launchSpreadOf({ noiseFloor, stored: measured.verdict }, metric))
  }
  const warmMs = mean(steady.map((r) => r.durationMs))
  const coldMs = measured.rounds.filter((r) => !r.steady).reduce((s, r) => s + r.durationMs, 0)
  // A launch always discards a cold round (ab-launches.ts): at least one round's time before its warm ones.
  const launchMs = (measured.startup_s ?? 0) * 1000 + Math.max(coldMs, warmMs)
  if (!(warmMs > 0)) return most
  const best = ratio * Math.sqrt(launchMs / warmMs)
  return Math.min(most, Math.max(1, Math.ceil(best)))
}

/**
 * Warm rounds to add to a cell on one launch of an A/B (the adaptive rounds rule within a launch): enough that the
 * round-to-round part of each gated metric's launch error is no larger than the launch-to-launch spread assumed
 * (`noise-floor`), since past that more rounds narrow the A/B's interval little and more launches would. With k
 * steady rounds of relative error se, k·(se/floor)² rounds get there; at most `maxRounds` rounds in all.
 */
export function abMoreRounds(cell: CellResult, gate: GateConfig, noiseFloor: number, maxRounds: number): number {
  if (noiseFloor <= 0 || !cell.metrics) return 0
  const k = cell.rounds.filter((r) => r.steady).length
  let wanted = k
  for (const metric of GATED_METRICS) {
    const stat = gatedStat(gate, metric)
    const value = stat === undefined || !isRelative(metric) ? undefined : readMetric(cell.metrics, metric, stat)
    if (stat === undefined || value === undefined || !(value > 0)) continue
    const se = launchSe(cell, metric, stat, value)
    wanted = Math.max(wanted, Math.ceil(k * (se / noiseFloor) ** 2))
  }
  return Math.max(0, Math.min(wanted - k, maxRounds - cell.rounds.length))
}
