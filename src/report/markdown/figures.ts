/**
 * The headline figures of a cell with their change against one reference per cell. A gated metric shows what its
 * verdict was decided on (`verdict.metrics[m]`: current, baseline, change, stat), whichever path decided it: the
 * stored baseline, the first measurement pooled with its confirmation re-measurements (compare/confirm.ts), or a
 * same-box A/B; it is bold exactly when that verdict is a regression. A figure no verdict judged (a metric not
 * gated) comes from the same measurements where the results file holds them: when a same-box A/B decided the cell
 * (docs/same-box.md), the A/B's launches, the PR arms' value against the base arms', each the geometric mean of its
 * launches' steady values as compare/ab.ts takes them (their ratio is the A/B's change), the arithmetic mean for a
 * share some launch measured at 0; else the cell's own measurement against the stored baseline: after a
 * confirmation, the first measurement pooled with its re-measurements (`pooled`), as the verdict took them; in a file
 * of an earlier release, which keeps no pooled block, the first measurement only, and the figure says so (`firstOnly`).
 * A figure from one reference beside a change from the other would mix two boxes.
 */
import { isRelative, metricInfo, readCellMetric, type GateStat, type GatedMetric } from '../../core/metrics.js'
import type { MetricsBlock } from '../../core/measurements.js'
import type { AbArm, CellResult, CellVerdict, MetricVerdict } from '../../core/results.js'

export interface Figure {
  value: number | undefined
  /** The stat shown; the gate's when the metric is gated, else the mean. */
  stat: GateStat
  baseline: number | undefined
  delta: number | undefined
  regressed: boolean
  /**
   * A figure no verdict judged, of a cell whose verdict pooled its first measurement with re-measurements, read from a
   * file that keeps no pooled block (an earlier release's) or a launch figure: it is the first measurement's alone.
   */
  firstOnly?: boolean
}

/** What a cell's row is against when that is not the stored baseline alone, as the row says it. */
export type RowReference = 'base arm' | 'stored baseline'

/** Each arm's metrics blocks, when an A/B decided the cell and every one of its launches measured it. */
function abArms(cell: CellResult): Record<AbArm, MetricsBlock[]> | undefined {
  if (cell.ab?.status !== 'ran') return undefined
  const arms = cell.ab.arms ?? []
  const blocks = (arm: AbArm) => arms.filter((a) => a.arm === arm).map((a) => a.metrics)
  const [base, pr] = [blocks('base'), blocks('pr')]
  const measured = (b: (MetricsBlock | null)[]): b is MetricsBlock[] => b.length > 0 && b.every(Boolean)
  return measured(base) && measured(pr) ? { base, pr } : undefined
}

/**
 * The row's reference when an A/B ran: the base arm, or the stored baseline when a launch measured nothing (the
 * A/B's verdict is then an error, and the row keeps the stored baseline's figures). Undefined without an A/B.
 */
export function rowReference(cell: CellResult): RowReference | undefined {
  if (cell.ab?.status !== 'ran') return undefined
  return abArms(cell) ? 'base arm' : 'stored baseline'
}

export function figure(cell: CellResult, metric: GatedMetric): Figure {
  const judged = cell.verdict.skipped ? undefined : cell.verdict.metrics[metric]
  if (judged) return verdictFigure(metric, judged)
  const arms = abArms(cell)
  if (arms) return armsFigure(cell, metric, arms)
  return measuredFigure(cell, metric)
}

/** The figures a metric's verdict was decided on; a change the verdict could not express (from a zero share) has none. */
function verdictFigure(metric: GatedMetric, m: MetricVerdict): Figure {
  const delta = isRelative(metric) && typeof m.delta === 'number' && Number.isFinite(m.delta) ? m.delta : undefined
  return { value: m.current, stat: m.stat, baseline: m.baseline, delta, regressed: m.status === 'regression' }
}

/**
 * A figure the cell's verdict did not judge, from the cell's own measurement against the stored baseline's reference.
 * An A/B that could not finish leaves the row against the stored baseline: a metric its verdict there judged shows
 * that verdict's figures, never bold (the cell's verdict is the A/B's error, not that metric's).
 */
function measuredFigure(cell: CellResult, metric: GatedMetric): Figure {
  const against = cell.ab?.status === 'ran' && cell.ab.stored ? cell.ab.stored : cell.verdict
  const gated = against.metrics[metric]
  if (gated && !cell.verdict.skipped) return { ...verdictFigure(metric, gated), regressed: false }
  const reference = against.reference?.[metric]
  const stat = statOf(against, metric)
  // A skipped cell measured nothing: it shows the baseline's figures, without a change.
  if (cell.verdict.skipped)
    return { value: reference?.value, stat, baseline: reference?.value, delta: undefined, regressed: false }
  // After a confirmation, the rounds the verdict pooled; a launch figure (startup) is the first launch's.
  const pooled = cell.pooled && !metricInfo(metric).launch ? cell.pooled.metrics : undefined
  const value = readCellMetric(pooled ? { ...cell, metrics: pooled } : cell, metric, stat)
  const own = withDelta(metric, { value, stat, regressed: false }, reference?.value)
  return cell.verdict.confirmed && !pooled && own.value !== undefined ? { ...own, firstOnly: true } : own
}

/** The PR arms' figure against the base arms'; a metric a launch did not measure has no change. */
function armsFigure(cell: CellResult, metric: GatedMetric, arms: Record<AbArm, MetricsBlock[]>): Figure {
  const stat = statOf(cell.verdict, metric)
  const regressed = cell.verdict.metrics[metric]?.status === 'regression'
  const center = (blocks: MetricsBlock[]) => {
    const values = blocks.map((metrics) => readCellMetric({ metrics }, metric, stat))
    if (values.some((v) => v === undefined)) return undefined
    const known = values as number[]
    return known.every((v) => v > 0)
      ? Math.exp(known.reduce((sum, v) => sum + Math.log(v), 0) / known.length)
      : known.reduce((sum, v) => sum + v, 0) / known.length
  }
  const [value, baseline] = [center(arms.pr), center(arms.base)]
  if (value === undefined || baseline === undefined)
    return { value: readCellMetric(cell, metric, stat), stat, baseline: undefined, delta: undefined, regressed }
  return withDelta(metric, { value, stat, regressed }, baseline)
}

function statOf(verdict: CellVerdict, metric: GatedMetric): GateStat {
  return verdict.metrics[metric]?.stat ?? verdict.reference?.[metric]?.stat ?? 'mean'
}

function withDelta(metric: GatedMetric, f: Omit<Figure, 'baseline' | 'delta'>, baseline: number | undefined): Figure {
  const delta =
    f.value !== undefined && baseline !== undefined && baseline > 0 && isRelative(metric)
      ? (f.value - baseline) / baseline
      : undefined
  return { ...f, baseline, delta }
}
