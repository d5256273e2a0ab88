/**
 * The one order in which a report lists cells, most severe first: cells that could not be measured, then
 * regressions by how far past their limit the worst regressed metric is (|delta| ÷ the limit its verdict held it to,
 * largest first), then inconclusive cells, then the rest by status (improved, missing, new, passed). Within a group,
 * and between regressions equally far past, cells keep their plan order. The lists under the headline, the tables and
 * the Verdicts section all read this order.
 */
import type { CellResult, CellVerdictStatus, MetricVerdict } from '../core/results.js'

const GROUPS: readonly CellVerdictStatus[] = [
  'error',
  'regression',
  'inconclusive',
  'improvement',
  'missing',
  'new',
  'pass',
]

/**
 * How far past its limit a regressed metric is: |delta| ÷ limit (2 is twice the limit). A change without a finite
 * delta (a share rising from zero) is past any limit; a verdict without a limit (a ceiling, a file of an earlier
 * release) is ranked by |delta| alone.
 */
export function pastLimit(m: MetricVerdict): number {
  if (m.delta === null || !Number.isFinite(m.delta)) return Infinity
  const change = Math.abs(m.delta)
  return m.limit !== undefined && m.limit > 0 ? change / m.limit : change
}

/** The cell's worst regressed metric, past its limit (pastLimit); 0 for a cell no metric regressed (quality, length). */
export function severity(cell: CellResult): number {
  const regressed = Object.values(cell.verdict.metrics).filter((m) => m.status === 'regression')
  return regressed.reduce((worst, m) => Math.max(worst, pastLimit(m)), 0)
}

/** Negative when `a` comes before `b`: status group first, then (for regressions) the larger severity. */
export function compareSeverity(a: CellResult, b: CellResult): number {
  const group = GROUPS.indexOf(a.verdict.status) - GROUPS.indexOf(b.verdict.status)
  if (group || a.verdict.status !== 'regression') return group
  const [sa, sb] = [severity(a), severity(b)]
  return sa === sb ? 0 : sb > sa ? 1 : -1
}

/** The cells most severe first (compareSeverity); a stable sort, so equals keep their plan order. */
export function bySeverity(cells: readonly CellResult[]): CellResult[] {
  return [...cells].sort(compareSeverity)
}
