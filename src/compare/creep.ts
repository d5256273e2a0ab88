/**
 * Creep on the default branch (pure): merges that each lose less than the limit, adding up. The per-run gate judges
 * each main run against the level main is at (reference.ts), so a 2.5 % loss passes, the reference follows it down,
 * and four of them are a 10 % loss nobody was told about — the "main already regressed" drift of rolling
 * baselines (NVIDIA/TensorRT-LLM PR #18766; sglang #21157, #24563 found such losses by hand, weeks later).
 *
 * Rule, per cell and gated relative metric, over main's runs (newest last, the run being judged included):
 *
 * - The reference point is the newest level shift (reference.ts `levelShifts`, the same scan and options the
 *   verdict uses) that one merge made — its first run moved from the run before it by more than the limit, so the
 *   per-run gate judged that step when it landed — else the first of the newest `creep-window` runs. A shift the
 *   scan finds inside a creep is not one: its first run moved by one small step, and counting it as the new level
 *   would hide the creep it is made of (on a quiet box the scan finds such a shift in every window of four 2.5 %
 *   steps against a 5 % limit).
 * - The level there is the median of the reference point's first REFERENCE_RUNS runs (fewer where the newest runs
 *   follow sooner); the level now is the mean of the newest CREEP_NOW_RUNS runs, so one odd run alone is not a
 *   level.
 * - Noise: a run's spread σ from successive differences, σ² = Σ(x_{i+1} − x_i)² / 2(n − 1) over the runs since
 *   the reference point (von Neumann's mean square successive difference, Ann. Math. Statist. 12(4), 1941), which a
 *   slow drift barely inflates — the creep itself is not counted as noise — and at least the `noise-floor`. The
 *   change's variance is σ²/CREEP_NOW_RUNS + c·σ²/m for the reference median of m runs (c = π/2 for m ≥ 3, as
 *   noise.ts), its band CREEP_Z = 2.75 standard deviations: σ estimated from some twenty runs is itself uncertain,
 *   and at the per-run gate's 2.5 an unchanged main raised a creep in 1.15 % of runs at 3 % launch noise, at 2.75 in
 *   0.7 % (test/compare/creep.test.ts).
 * - Creep: the level now worse than the level at the reference point by more than the limit and more than the
 *   band. The span it names starts after the newest run at least as good as the reference level; it says whether
 *   each of its merges was within the limit on its own.
 */
import { formatDelta, formatPercent } from '../core/format.js'
import {
  GATED_METRICS,
  METRICS,
  isDrop,
  isRelative,
  metricInfo,
  metricLabel,
  readCellMetric,
  type RelativeMetric,
} from '../core/metrics.js'
import type { GateConfig, GateMetricConfig } from '../core/plan.js'
import type { CellResult, CreepAlert, HistoryEntry } from '../core/results.js'
import { mean, median } from '../core/stats.js'
import { historyRuns, steadyRounds, type BaselineRun } from './baseline.js'
import { gatedStat } from './judge.js'
import { REFERENCE_RUNS, levelShifts, relativeLimit } from './reference.js'

/** Main runs a creep is looked for over when no level shift is newer (`creep-window`). */
export const CREEP_WINDOW = 20
/** Newest runs whose mean is the level now. */
export const CREEP_NOW_RUNS = 2
/** Standard deviations of the change its band spans (see the header). */
export const CREEP_Z = 2.75

/** One of main's runs of a metric: its steady value, its rounds and its commit (baseline.ts). */
export type CreepRun = BaselineRun

export interface CreepInput {
  metric: RelativeMetric
  config: GateMetricConfig
  /** Main's runs of the cell, oldest first, the run being judged last. */
  runs: readonly CreepRun[]
  window?: number
  noiseFloor: number
}

/** The creep of one metric, or undefined when there is none or too few runs to tell (see the header). */
export function creepOf(input: CreepInput): CreepAlert | undefined {
  const { metric, config, noiseFloor } = input
  const window = input.runs.slice(-(input.window ?? CREEP_WINDOW))
  const values = window.map((r) => r.steady)
  if (values.some((v) => !(v > 0))) return undefined
  const info = METRICS[metric]
  // Positive when b is worse than a, relative to a.
  const worse = (a: number, b: number) => (info.higherIsBetter ? (a - b) / a : (b - a) / a)
  const limit = relativeLimit(config, median(values))
  const shifts = levelShifts(
    values,
    window.map((r) => [...r.rounds]),
    { config, noiseFloor },
  )
  const start = shifts.filter((s) => Math.abs(worse(values[s - 1], values[s])) > limit).at(-1) ?? 0
  const nowFrom = values.length - CREEP_NOW_RUNS
  const referenceRuns = values.slice(start, Math.min(start + REFERENCE_RUNS, nowFrom))
  if (referenceRuns.length < 2) return undefined
  const level = median(referenceRuns)
  const now = mean(values.slice(nowFrom))
  const change = (now - level) / level
  const loss = worse(level, now)
  const since = values.slice(start)
  const successive = since.slice(1).reduce((s, v, i) => s + ((v - since[i]) / level) ** 2, 0)
  const sigma2 = Math.max(successive / (2 * (since.length - 1)), noiseFloor ** 2)
  const m = referenceRuns.length
  const band = CREEP_Z * Math.sqrt(sigma2 / CREEP_NOW_RUNS + ((m >= 3 ? Math.PI / 2 : 1) * sigma2) / m)
  if (!(loss > limit && loss > band)) return undefined
  // The span: after the newest run at least as good as the reference level (the reference point's own runs count).
  let last = start
  for (let i = start; i < values.length; i++) if (worse(level, values[i]) <= 0) last = i
  const merges = values.length - 1 - last
  const eachWithin = values.slice(last + 1).every((v, i) => worse(values[last + i], v) <= limit)
  const label = metricLabel(metric, config.stat)
  const sha = window[last].sha.slice(0, 7)
  const each = eachWithin ? 'each within the limit' : 'not each within the limit'
  return {
    metric,
    change,
    band,
    since: window[last].sha,
    merges,
    eachWithin,
    reason: `${label} ${formatDelta(change)} over ${merges} merge${merges === 1 ? '' : 's'} since ${sha}, ${each} (limit ${formatPercent(limit)}, noise ±${formatPercent(band)})`,
  }
}

export interface CellCreepOptions {
  /** This run's commit: the newest run of the span. */
  sha: string
  window?: number
  noiseFloor: number
}

/**
 * A default-branch run's cell against main's history (oldest first, before this run): every gated relative metric
 * whose level crept past its limit, this run the newest of the runs looked at. Launch figures (start-up) have no
 * rounds to pair with a run's and a drop (goodput) is judged in points; neither is looked at here.
 */
export function cellCreep(
  cell: CellResult,
  history: readonly HistoryEntry[],
  gate: GateConfig,
  options: CellCreepOptions,
): CreepAlert[] {
  if (cell.status !== 'ok' || !cell.metrics) return []
  const window = options.window ?? CREEP_WINDOW
  const alerts: CreepAlert[] = []
  for (const metric of GATED_METRICS) {
    const stat = gatedStat(gate, metric)
    if (stat === undefined || !isRelative(metric) || isDrop(metric) || metricInfo(metric).launch) continue
    const steady = readCellMetric(cell, metric, stat)
    if (steady === undefined) continue
    const past = historyRuns(history, cell.id, metric, stat)
    const runs = [...past.slice(-(window - 1)), { sha: options.sha, steady, rounds: steadyRounds(cell, metric, stat) }]
    const alert = creepOf({ metric, config: gate[metric]!, runs, window, noiseFloor: options.noiseFloor })
    if (alert) alerts.push(alert)
  }
  return alerts
}
