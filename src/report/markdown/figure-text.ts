/**
 * A figure read base → head, as CodSpeed's reports put it (`21.8 → 19.1 tok/s, −12.4%`): the compact table's
 * figure cells and the why lines say the baseline the change is against, not the change alone.
 */
import { EMPTY, formatDelta, formatNumber, formatPercent, formatPointsDelta, plural } from '../../core/format.js'
import { METRICS, isRelative, metricLabel, type GatedMetric } from '../../core/metrics.js'
import type { CellResult, MetricVerdict } from '../../core/results.js'
import { figure, type Figure } from './figures.js'

/** Kept on one line in a narrow column: the values stay together, the change may wrap after the comma. */
const ARROW = '&nbsp;→&nbsp;'

/** Said after a figure that is the first measurement's alone while the verdict pooled re-measurements (figures.ts). */
export const FIRST_ONLY = ' · first measurement'

/**
 * After a cell's id in the details of its measurement (every statistic, its rounds), when its verdict pooled that
 * measurement with re-measurements the results file does not keep: ` (first measurement; the verdict pooled it with
 * 1 re-measurement)`. Empty otherwise.
 */
export function pooledNote(cell: CellResult): string {
  const again = cell.verdict.confirmed
  if (!again || cell.ab?.status === 'ran') return ''
  return ` (first measurement; the verdict pooled it with ${plural(again, 're-measurement')})`
}

/** `28.6 → 25.8, −10.0%` (`600 → 660 p99, +10.0%` for a stat other than the mean), bold when that metric regressed. */
export function baseHeadText(cell: CellResult, metric: GatedMetric): string {
  const f = figure(cell, metric)
  if (f.value === undefined) return EMPTY
  const stat = f.stat === 'mean' ? '' : ` ${f.stat}`
  const values =
    f.baseline === undefined ? formatNumber(f.value) : `${formatNumber(f.baseline)}${ARROW}${formatNumber(f.value)}`
  const change = f.delta === undefined ? '' : `, ${formatDelta(f.delta)}`
  return `${bold(f, `${values}${stat}${change}`)}${f.firstOnly ? FIRST_ONLY : ''}`
}

/** `goodput 100% → 75%, −25 pt`, bold when goodput regressed; undefined for a cell without an `slo`. */
export function goodputBaseHead(cell: CellResult): string | undefined {
  const f = figure(cell, 'goodput')
  if (f.value === undefined) return undefined
  const values =
    f.baseline === undefined
      ? formatPercent(f.value)
      : `${formatPercent(f.baseline)}${ARROW}${formatPercent(f.value)}, ${formatPointsDelta(f.value - f.baseline, 'pt')}`
  return bold(f, `goodput ${values}`)
}

function bold(f: Figure, text: string): string {
  return f.regressed ? `**${text}**` : text
}

/**
 * What follows the change in a reason compare/metric.ts words against a stored baseline: the absolute change
 * (` / +31 ms`), the limits (` (limit 5%, …`) or the noise that is too wide (`: noise ±…`).
 */
const STORED_REASON = /^(?: \/ | \(limit|: noise)/

/**
 * A metric verdict's reason with its values base → head in front of the change: `decode tok/s −10.0% (limit 5%, …)`
 * reads `decode tok/s 28.6 → 25.8 tok/s, −10.0% (limit 5%, …)`. A reason that already says both values (a share's
 * points, an A/B's arms `± 1.1% (… base 21.8 tok/s → PR 19.1 tok/s …)`, a ceiling) or that opens otherwise is kept.
 */
export function reasonWithValues(m: MetricVerdict): string {
  if (!isRelative(m.metric) || typeof m.delta !== 'number' || !Number.isFinite(m.delta)) return m.reason
  const label = metricLabel(m.metric, m.stat)
  const said = `${label} ${formatDelta(m.delta)}`
  if (!m.reason.startsWith(said) || !STORED_REASON.test(m.reason.slice(said.length))) return m.reason
  const values = `${formatNumber(m.baseline)} → ${formatNumber(m.current)} ${METRICS[m.metric].unit}`
  return `${label} ${values}, ${m.reason.slice(label.length + 1)}`
}
