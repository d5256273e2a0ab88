/**
 * An SLO neither side meets. Goodput is the share of requests that met every bound of the scenario's `slo`
 * (bench/rounds/goodput.ts); a share whose reference is 0 cannot drop (metric.ts `judgeFromZero`), so at 0 % on both
 * sides — the baseline's and this run's, or an A/B's base and PR arms — the goodput gate could never fail, and the
 * cell would pass while no request of either side was good. Such a goodput is never a pass: it is undecided,
 * `needs: 'slo'`, and its why quotes the bounds, what this side's median request measured against them, and what
 * would decide it: a looser SLO, or an engine fast enough to meet it. More rounds or launches cannot: a cell
 * undecided for this alone wants no same-box A/B. Undecided never downgrades a decided regression: the cell's status
 * is its worst metric's (judge.ts `cellStatus`), so a cell whose decode regressed stays a regression.
 */
import { formatDuration, formatPercent } from '../core/format.js'
import { metricLabel, readCellMetric, type CellFigures, type DropMetric } from '../core/metrics.js'
import type { GateMetricConfig, SloBounds } from '../core/plan.js'
import type { CellVerdict, MetricVerdict } from '../core/results.js'
import { SLO_BOUNDS, formatSlo } from '../core/workload.js'
import { mean } from '../core/stats.js'
import { judgeFromZero } from './metric.js'

/** This side of the comparison: the scenario's bounds, and the measurements (or PR launches) its share comes from. */
export interface SloSide {
  slo?: SloBounds
  cells: readonly CellFigures[]
  /** Where the other side is: `at the baseline` against a stored baseline, `on the base arm` in a same-box A/B. */
  other: string
}

/**
 * A share whose reference is 0: out of reach when this side's is 0 too, else judged from zero (it cannot drop, and
 * improves when it rose by more than the limit).
 */
export function judgeFromZeroShare(
  metric: DropMetric,
  config: GateMetricConfig,
  current: number,
  side: SloSide,
): MetricVerdict {
  return current > 0 ? judgeFromZero(metric, config, current) : sloOutOfReach(metric, side)
}

/**
 * `goodput 0% → 0%: the SLO TTFT ≤ 2s, TPOT ≤ 80ms is out of reach on both sides (p50 TPOT 95ms here; no good request
 * at the baseline either); a looser SLO or a faster engine would decide`.
 */
export function sloOutOfReach(metric: DropMetric, side: SloSide): MetricVerdict {
  const slo = side.slo ? `the SLO ${formatSlo(side.slo)}` : 'the SLO'
  const here = side.slo && medians(side.slo, side.cells)
  const zero = formatPercent(0)
  return {
    status: 'inconclusive',
    metric,
    stat: 'mean',
    current: 0,
    baseline: 0,
    delta: null,
    needs: 'slo',
    reason:
      `${metricLabel(metric, 'mean')} ${zero} → ${zero}: ${slo} is out of reach on both sides ` +
      `(${here ? `${here}; ` : ''}no good request ${side.other} either); a looser SLO or a faster engine would decide`,
  }
}

/**
 * `p50 TPOT 95ms here`: this side's median request against the bounds it misses, or against every bound when it
 * misses none (each request then missed one bound or another); undefined when the cells lack the figures.
 */
function medians(slo: SloBounds, cells: readonly CellFigures[]): string | undefined {
  const figures = SLO_BOUNDS.flatMap(([key, metric]) => {
    const bound = slo[key]
    const values = cells.map((c) => readCellMetric(c, metric, 'p50'))
    if (bound === undefined || !values.length || values.some((v) => v === undefined)) return []
    const value = mean(values as number[])
    return [{ text: `${metric.toUpperCase()} ${formatDuration(value)}`, over: value > bound }]
  })
  const shown = figures.some((f) => f.over) ? figures.filter((f) => f.over) : figures
  return shown.length ? `p50 ${shown.map((f) => f.text).join(', ')} here` : undefined
}

/**
 * True when the verdict is undecided for an out-of-reach SLO alone: every undecided metric needs a looser SLO and
 * nothing else is undecided, so neither more rounds nor a same-box A/B could decide it.
 */
export function undecidedOnlyBySlo(verdict: Pick<CellVerdict, 'status' | 'metrics' | 'undecided'>): boolean {
  if (verdict.status !== 'inconclusive' || verdict.undecided?.length) return false
  const undecided = Object.values(verdict.metrics).filter((v) => v.status === 'inconclusive')
  return undecided.length > 0 && undecided.every((v) => v.needs === 'slo')
}
