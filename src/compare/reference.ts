/**
 * History → reference for one cell and metric: the level main is at now, robust to steps main accepted on purpose
 * and to odd runs.
 *
 * - Level shifts. The window's steady values (the newest HISTORY_WINDOW runs, newest last) are scanned from the
 *   oldest. A new segment starts at run j when the SHIFT_RUNS runs from j all lie on one side of the current
 *   segment's level, each farther from it than max(SHIFT_K × s, limit) relative to it, and each of their rounds
 *   farther than half that: a run whose mean moved because one round was throttled has its other round at the
 *   old level. The segment's level is the median of its runs that are not odd (spread.ts: rounds disagreeing far
 *   more than other runs' do), and a step needs SHIFT_RUNS of them before it. s is the run-to-run spread of the
 *   whole window by Qn (spread.ts: two levels read as the spread within them, so the step looked for does not
 *   hide itself), floored by √(f² + σ_w²/k̄) — the noise floor f and the window's round-to-round variance over its
 *   k̄ rounds a run; limit is the gate's effective limit, so a step smaller than what the gate judges is never a
 *   shift. False shifts: with normal noise and s exact, two runs clear 3 s on one side 2·0.00135² ≈ 4·10⁻⁶ of the
 *   time a position. Measured over whole 20-run windows with s estimated (test/compare/reference.test.ts, 2,000
 *   windows each): 0 % at 2 % round noise, 0.1 % with 2 % launch noise, 1.35 % with one round in ten 15 % slow.
 * - Reference value: the median of the runs since the last shift, at most REFERENCE_RUNS of the newest. One odd
 *   run among them moves a median by one rank; a single run at a new level stays an odd run until a second one
 *   confirms the step.
 * - The noise model (noise.ts) gets every window run and the segment starts: the run-to-run spread is measured
 *   within segments only (a step is not noise).
 */
import type { GateMetricConfig } from '../core/plan.js'
import type { Rebase } from '../core/results.js'
import type { GateStat, GatedMetric } from '../core/metrics.js'
import { mean, median } from '../core/stats.js'
import { baselineRuns, type BaselineView } from './baseline.js'
import { guardedWithin, oddRuns, qn } from './spread.js'

export const REFERENCE_RUNS = 5
const SHIFT_K = 3
const SHIFT_RUNS = 2

export interface Reference {
  value: number
  source: 'history' | 'file'
  /** Runs the value is the median of, and their mean round count. */
  runs: number
  rounds: number
  /** Every window run's steady value and rounds (newest last), and the indexes where a level segment starts. */
  steady: number[]
  history: number[][]
  breaks: number[]
  rebased?: Rebase
}

export interface ReferenceOptions {
  /** The gate's limit for the metric; undefined for a figure that is only reported. */
  config?: GateMetricConfig
  noiseFloor: number
}

/** The stricter of the relative and the absolute limit, as a fraction of `base`. */
export function relativeLimit(config: GateMetricConfig | undefined, base: number): number {
  if (!config) return 0
  return Math.max(config.maxRegression, config.minDelta === undefined ? 0 : config.minDelta / base)
}

export function referenceFor(
  view: BaselineView,
  id: string,
  metric: GatedMetric,
  stat: GateStat,
  options: ReferenceOptions,
): Reference | undefined {
  const found = baselineRuns(view, id, metric, stat)
  if (!found) return undefined
  const values = found.runs.map((r) => r.steady)
  const history = found.runs.map((r) => r.rounds)
  const starts = levelShifts(values, history, options)
  const last = starts.at(-1) ?? 0
  const since = found.runs.slice(last).slice(-REFERENCE_RUNS)
  const value = median(since.map((r) => r.steady))
  const reference: Reference = {
    value,
    source: found.source,
    runs: since.length,
    rounds: mean(since.map((r) => Math.max(r.rounds.length, 1))),
    steady: values,
    history,
    breaks: starts,
  }
  // A shift changes the reference only while fewer runs than REFERENCE_RUNS stand at the new level.
  if (last > 0 && found.runs.length - last < REFERENCE_RUNS) {
    const before = median(values.slice(starts.at(-2) ?? 0, last))
    reference.rebased = { sha: found.runs[last].sha, change: (value - before) / before, runs: since.length }
  }
  return reference
}

/** Indexes where a new level starts (see the module header). */
export function levelShifts(
  values: readonly number[],
  rounds: readonly (readonly number[])[],
  options: ReferenceOptions,
): number[] {
  const level = median(values)
  if (values.length <= SHIFT_RUNS || !(level > 0)) return []
  const perRun = guardedWithin(rounds).variance / Math.max(mean(rounds.map((r) => Math.max(r.length, 1))), 1)
  const spread = Math.max(qn(values) / level, Math.sqrt(options.noiseFloor ** 2 + perRun))
  const threshold = Math.max(SHIFT_K * spread, relativeLimit(options.config, level))
  const odd = oddRuns(rounds)
  const starts: number[] = []
  let start = 0
  for (let j = 1; j + SHIFT_RUNS <= values.length; j++) {
    // The level a step is measured from: at least SHIFT_RUNS runs that are not odd, as a step needs.
    const clean = values.slice(start, j).filter((_, i) => !odd[start + i])
    if (clean.length < SHIFT_RUNS) continue
    const segment = median(clean)
    if (steps(values.slice(j, j + SHIFT_RUNS), rounds.slice(j, j + SHIFT_RUNS), segment, threshold)) {
      starts.push(j)
      start = j
      j += SHIFT_RUNS - 1
    }
  }
  return starts
}

/**
 * True when every run is past the threshold on one side and every one of its rounds past half of it: a run with
 * one throttled round is past the threshold on its mean while its other round stayed at the old level.
 */
function steps(
  values: readonly number[],
  rounds: readonly (readonly number[])[],
  level: number,
  threshold: number,
): boolean {
  const away = (v: number) => (v - level) / level
  const side = Math.sign(away(values[0]))
  return values.every((v, i) => side * away(v) > threshold && rounds[i].every((r) => side * away(r) > threshold / 2))
}
