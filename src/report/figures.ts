/** The headline figures of a cell with their change against the baseline. */
import { isRelative, readCellMetric, type GateStat, type GatedMetric } from '../core/metrics.js'
import type { CellResult } from '../core/results.js'

export interface Figure {
  value: number | undefined
  /** The stat shown; the gate's when the metric is gated, else the mean. */
  stat: GateStat
  baseline: number | undefined
  delta: number | undefined
  regressed: boolean
}

export function figure(cell: CellResult, metric: GatedMetric): Figure {
  const gated = cell.verdict.metrics[metric]
  const reference = cell.verdict.reference?.[metric]
  const stat = gated?.stat ?? reference?.stat ?? 'mean'
  // A skipped cell measured nothing: it shows the baseline's figures, without a change.
  if (cell.verdict.skipped)
    return { value: reference?.value, stat, baseline: reference?.value, delta: undefined, regressed: false }
  const value = readCellMetric(cell, metric, stat)
  const baseline = gated?.baseline ?? reference?.value
  const delta =
    value !== undefined && baseline !== undefined && baseline > 0 && isRelative(metric)
      ? (value - baseline) / baseline
      : undefined
  return { value, stat, baseline, delta, regressed: gated?.status === 'regression' }
}
