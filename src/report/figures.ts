/** The four headline figures of a cell with their change against the baseline. */
import { GATED, metricKey, tryReadMetric } from '../compare/keys.js'
import { GATE_STATS, type GateStat, type GatedMetric } from '../config/plan.js'
import type { CellResult } from '../results.js'

export const HEADLINE_METRICS: readonly GatedMetric[] = ['decode', 'ttft', 'tpot', 'output-throughput']

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
  const stat = statOf(cell, metric)
  const value = tryReadMetric(cell.metrics, metric, stat)
  const baseline = gated?.baseline ?? cell.verdict.reference?.[metricKey(metric, stat)]
  const delta = value !== undefined && baseline !== undefined && baseline > 0 ? (value - baseline) / baseline : undefined
  return { value, stat, baseline, delta, regressed: gated?.status === 'regression' }
}

function statOf(cell: CellResult, metric: GatedMetric): GateStat {
  const info = GATED[metric]
  if (info.scalar) return 'mean'
  const keys = [cell.verdict.metrics[metric]?.metric, ...Object.keys(cell.verdict.reference ?? {})]
  for (const key of keys) {
    const stat = key?.startsWith(`${info.field}.`) ? key.slice(info.field.length + 1) : undefined
    if (stat && (GATE_STATS as readonly string[]).includes(stat)) return stat as GateStat
  }
  return 'mean'
}
