/**
 * Level shifts in a stored history as a page draws them: per cell and metric, the runs where a new level starts,
 * found by the same scan (`levelShifts`, reference.ts) under the same options the verdict's reference of that
 * metric is computed with — the cell's target's gate limit and its `noise-floor` — so a page never marks a step
 * the verdict did not take as main's new level, nor leaves out one it did.
 */
import { isDrop, isRelative, metricKey, type GatedMetric } from '../core/metrics.js'
import type { GateConfig } from '../core/plan.js'
import type { HistoryEntry } from '../core/results.js'
import { isUsable } from '../core/stats.js'
import { dropConfig } from './metric.js'
import { NOISE_FLOOR } from './noise.js'
import { levelShifts, type ReferenceOptions } from './reference.js'

/** What a target's verdicts are judged by: its gate and its `noise-floor` (the built-in one when absent). */
export interface ShiftRules {
  gate: GateConfig
  noiseFloor?: number
}

/** Per cell id and metric, the history indexes where a level shift starts. */
export type HistoryShifts = Record<string, Partial<Record<GatedMetric, number[]>>>

/**
 * The options the verdict's reference of `metric` is computed with under `rules` (judge.ts): a relative metric's
 * limit from the gate, a share's drop as the absolute limit it is judged by (`dropConfig`), no limit for a ceiling
 * or an ungated metric; the target's noise floor, else the built-in one.
 */
export function referenceOptions(metric: GatedMetric, rules: ShiftRules | undefined): ReferenceOptions {
  const noiseFloor = rules?.noiseFloor ?? NOISE_FLOOR
  if (isRelative(metric)) return { config: rules?.gate[metric], noiseFloor }
  const drop = isDrop(metric) ? rules?.gate[metric] : undefined
  return drop ? { config: dropConfig(drop), noiseFloor } : { noiseFloor }
}

/**
 * The level shifts of each cell's steady means of `metrics` over the whole `history` (oldest first), each cell
 * under its target's `rules`; a run that did not measure the figure is skipped, and the indexes are the history's.
 */
export function historyShifts(
  cells: readonly { id: string; target: string }[],
  history: readonly HistoryEntry[],
  metrics: readonly GatedMetric[],
  rules: Readonly<Record<string, ShiftRules>>,
): HistoryShifts {
  const shifts: HistoryShifts = {}
  for (const cell of cells) {
    for (const metric of metrics) {
      const key = metricKey(metric, 'mean')
      const at = history.flatMap((e, i) => (isUsable(e.cells[cell.id]?.[key]?.steady) ? [i] : []))
      const samples = at.map((i) => history[i].cells[cell.id][key])
      const starts = levelShifts(
        samples.map((s) => s.steady),
        samples.map((s) => s.rounds.filter(isUsable)),
        referenceOptions(metric, rules[cell.target]),
      )
      if (starts.length) (shifts[cell.id] ??= {})[metric] = starts.map((s) => at[s])
    }
  }
  return shifts
}
