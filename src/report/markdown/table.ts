/**
 * The table of cells: headline figures, each with its change against the baseline, and a status mark. A row a
 * same-box A/B decided is against the base arm in every figure, and says so after its status (figures.ts).
 */
import { markdownTable } from 'markdown-table'
import { HEADLINE_METRICS, metricInfo, type GatedMetric } from '../../core/metrics.js'
import { QUALITY_FIGURES, SHOWN_QUALITY_FIGURES } from '../../core/quality.js'
import type { CellResult } from '../../core/results.js'
import { clip, escapeText } from '../escape.js'
import { splitText } from './split-lines.js'
import { figure, rowReference } from './figures.js'
import { FIRST_ONLY } from './figure-text.js'
import { EMPTY, formatDelta, formatNumber, formatPercent, formatPointsDelta } from '../../core/format.js'
import { cellStatusText } from '../marks.js'
import { withDisturbedMark } from './box-lines.js'
import { engineLabel } from '../../core/runtime.js'
import { sparkline } from './sparkline.js'
import { BLIND_ACCURACY } from '../../quality/index.js'
import { sweepPoint } from '../../core/sweep.js'

const HEADER = ['Status', 'Target', 'Scenario', 'Engine', 'Quant']
const ALIGN = ['l', 'l', 'l', 'l', 'l']
export const COLUMNS = HEADLINE_METRICS.map((metric) => ({
  metric,
  head: metricInfo(metric).headline || { column: metric },
}))

/** A metric column's text: the figure, and what explains it beside it (acceptance, hit rate, goodput, the trend). */
export function columnText(
  cell: CellResult,
  { metric, head }: (typeof COLUMNS)[number],
  trends: Record<string, readonly number[]>,
): string {
  const figure = figureText(cell, metric)
  const beside = head.acceptance ? withAcceptance(figure, cell) : metric === 'ttft' ? withHitRate(figure, cell) : figure
  const shown = head.goodput ? withGoodput(beside, cell) : beside
  const line = metric === 'decode' && shown !== EMPTY ? sparkline(trends[cell.id] ?? []) : ''
  return line ? `${shown} ${line}` : shown
}

/** `trends`: per cell id, decode tok/s over recent default-branch runs, drawn as a sparkline after the decode figure. */
export function cellsTable(cells: readonly CellResult[], trends: Record<string, readonly number[]> = {}): string {
  const rows = sweepsTogether(cells).map((cell) => [
    withReference(withDisturbedMark(cellStatusText(cell), cell), cell),
    text(cell.target),
    text(cell.scenario),
    text(engineLabel(cell)),
    cell.quant ? text(cell.quant) : EMPTY,
    ...COLUMNS.map((column) => columnText(cell, column, trends)),
    qualityText(cell),
  ])
  const header = [...HEADER, ...COLUMNS.map((c) => c.head.column), 'Quality']
  const align = [...ALIGN, ...COLUMNS.map(() => 'r'), 'r']
  // Unaligned delimiters keep a 400-row table about a third smaller.
  return markdownTable([header, ...rows], { align, alignDelimiters: false })
}

/**
 * The cells in the order given, but the points of a concurrency sweep together, in concurrency order, at the place
 * of the sweep's first point: a target's sweep reads as one block whatever each point's verdict. Other cells keep
 * their places.
 */
export function sweepsTogether(cells: readonly CellResult[]): CellResult[] {
  const sweepOf = (c: CellResult) => {
    const point = sweepPoint(c.scenario)
    return point && { key: JSON.stringify([c.target, point.base]), concurrency: point.concurrency }
  }
  const groups = new Map<string, { cell: CellResult; concurrency: number }[]>()
  for (const cell of cells) {
    const sweep = sweepOf(cell)
    if (sweep) groups.set(sweep.key, [...(groups.get(sweep.key) ?? []), { cell, concurrency: sweep.concurrency }])
  }
  return cells.flatMap((cell) => {
    const sweep = sweepOf(cell)
    if (!sweep) return [cell]
    const group = groups.get(sweep.key)
    if (!group) return []
    groups.delete(sweep.key)
    return group.sort((a, b) => a.concurrency - b.concurrency).map((p) => p.cell)
  })
}

/** The row's text with what its changes are against, when a same-box A/B decided the cell: `… · Δ vs base arm`. */
export function withReference(text: string, cell: CellResult): string {
  const reference = rowReference(cell)
  return reference ? `${text} · Δ vs ${reference}` : text
}

/**
 * `45.0 (−10.0%)`: the figure the metric's verdict was decided on (figures.ts), bold exactly when that verdict is a
 * regression; the stat is named when it is not the mean. The baseline it is against is in the compact table and the
 * Verdicts section (figure-text.ts), which keeps this table of every cell narrow.
 */
export function figureText(cell: CellResult, metric: GatedMetric): string {
  const f = figure(cell, metric)
  if (f.value === undefined) return EMPTY
  const stat = f.stat === 'mean' ? '' : ` ${f.stat}`
  const change = f.delta === undefined ? '' : ` (${formatDelta(f.delta)})`
  const body = `${formatNumber(f.value)}${stat}${change}`
  return `${f.regressed ? `**${body}**` : body}${f.firstOnly ? FIRST_ONLY : ''}`
}

/**
 * `acc 100% · agree 0.98`, bold when the cell's output quality failed the gate; `acc 0% ⚠️` when
 * the probe had too few right answers to see wrong ones (the verdict note says so in words).
 */
export function qualityText(cell: CellResult): string {
  const parts = SHOWN_QUALITY_FIGURES.flatMap((f) => {
    const value = QUALITY_FIGURES[f].read(cell.quality)
    return value === undefined ? [] : [`${QUALITY_FIGURES[f].short} ${QUALITY_FIGURES[f].format(value)}`]
  })
  if (!parts.length) return EMPTY
  const failed = cell.verdict.failures?.some((f) => QUALITY_FAILURE.test(f))
  const accuracy = cell.quality?.probe?.accuracy
  if (!failed && accuracy !== undefined && accuracy < BLIND_ACCURACY) parts[0] += ' ⚠️'
  return failed ? `**${parts.join(' · ')}**` : parts.join(' · ')
}

/** How quality/verdict.ts words a failure. */
const QUALITY_FAILURE = /^(accuracy|agreement|output degenerate)/

/** Speculative decoding's split (or, without per-round factors, its acceptance rate) next to the decode speed it explains. */
function withAcceptance(decode: string, cell: CellResult): string {
  if (decode === EMPTY) return decode
  const split = splitText(cell.metrics)
  if (split) return `${decode} · ${split}`
  const rate = cell.specDecode?.acceptanceRate
  return rate === undefined ? decode : `${decode} · accept ${formatPercent(rate)}`
}

/** A shared-prefix scenario's prefix-cache hit rate belongs next to the TTFT it explains, where the engine counts it. */
function withHitRate(ttft: string, cell: CellResult): string {
  if (!cell.workload.prefixTokens || ttft === EMPTY) return ttft
  const rates = cell.rounds.flatMap((r) => {
    const rate = r.steady ? r.server?.rates?.prefix_cache_hit_rate : undefined
    return rate === undefined ? [] : [rate]
  })
  if (!rates.length) return ttft
  return `${ttft} · hit ${formatPercent(rates.reduce((a, b) => a + b, 0) / rates.length)}`
}

/** The cell's goodput after the figure it sits next to (`108 · goodput 96% (−4 pt)`); only a cell with an `slo` has one. */
function withGoodput(figureText: string, cell: CellResult): string {
  const part = goodputText(cell)
  if (!part) return figureText
  return figureText === EMPTY ? part : `${figureText} · ${part}`
}

/** `goodput 96% (−4 pt)`: the share of requests that met the SLO, its change in points, bold when it regressed. */
export function goodputText(cell: CellResult): string | undefined {
  const f = figure(cell, 'goodput')
  if (f.value === undefined) return undefined
  const change = f.baseline === undefined ? '' : ` (${formatPointsDelta(f.value - f.baseline, 'pt')})`
  const body = `goodput ${formatPercent(f.value)}${change}`
  return f.regressed ? `**${body}**` : body
}

function text(value: string): string {
  return escapeText(clip(value, 80))
}
