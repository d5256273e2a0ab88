/**
 * The leaderboard's columns, in the order a reader needs them: the cell (model, with its runtime and quant beneath),
 * its scenario, then the verdict and each headline Δ (the verdict's own figure, base → head beneath it), then the
 * raw figures. The raw figures are `extra`: hidden until the reader asks for all of them (leaderboard-style.ts), so
 * the verdict and Δ fit an 800 px window without scrolling sideways.
 */
import type { MetricsBlock } from '../../core/measurements.js'
import { PRIMARY_METRICS, metricInfo, type GatedMetric } from '../../core/metrics.js'
import { QUALITY_FIGURES, SHOWN_QUALITY_FIGURES, type QualityFigure } from '../../core/quality.js'
import type { CellResult } from '../../core/results.js'
import { escapeHtml } from '../escape.js'
import { EMPTY, formatDelta, formatNumber, formatPercent } from '../../core/format.js'
import { formatSlo } from '../../core/workload.js'
import { STATUS_MARK, STATUS_ORDER } from '../marks.js'
import { runtimeLabel } from '../../core/runtime.js'
import type { SortValue } from './leaderboard-sort.js'
import { decodeHtml } from './decode-cell.js'

export type Measured = CellResult & { metrics: MetricsBlock }

export interface Column {
  label: string
  numeric: boolean
  /** The raw sort key, written to `data-value`. */
  value: (cell: Measured) => SortValue
  /** Inner HTML; numeric columns show the formatted value by default. */
  html?: (cell: Measured) => string
  /** Extra class of the data cell (verdict colours). */
  tone?: (cell: Measured) => string | undefined
  /** Sorted as a number but shown as words, so not right-aligned. */
  words?: boolean
  /** Describes one run against its baseline (verdict, Δ): left out where the page shows the baseline itself. */
  perRun?: boolean
  /** Shown only when some cell has a value (the output quality figures). */
  whenPresent?: boolean
  /** A raw figure: hidden until the reader shows all figures. */
  extra?: boolean
  /** A headline figure: shown at once where the page has no Δ to carry it (the dashboard's stored baseline). */
  headline?: boolean
}

export function modelName(cell: CellResult): string {
  return cell.model || cell.target
}

export function finite(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

const num = (label: string, value: (m: MetricsBlock) => number): Column => ({
  label,
  numeric: true,
  extra: true,
  value: (c) => finite(value(c.metrics)),
})

/**
 * A headline figure's mean: the verdict's head where the verdict compared the mean (after a confirmation it pools
 * both measurements), so the column reads the number the Δ beside it was decided on; else the cell's own.
 */
function headlineMean(label: string, metric: GatedMetric, own: (m: MetricsBlock) => number | undefined): Column {
  const read = (c: Measured) => {
    const v = c.verdict.metrics[metric]
    return finite(v?.stat === 'mean' ? v.current : undefined) ?? finite(own(c.metrics))
  }
  return { label, numeric: true, extra: true, headline: true, value: read }
}

/** `28.5 → 25.7 tok/s`: the verdict's base and head of the metric, beneath its Δ. */
function baseToHead(cell: Measured, metric: GatedMetric): string {
  const v = cell.verdict.metrics[metric]
  if (finite(v?.baseline) === null || finite(v?.current) === null) return ''
  const { unit } = metricInfo(metric)
  return `<span class="sub">${formatNumber(v!.baseline)} → ${formatNumber(v!.current)} ${escapeHtml(unit)}</span>`
}

/** The verdict's Δ: the figure the gate decided on, as the report shows it (bold where it failed). */
const delta = (metric: GatedMetric): Column => ({
  label: `Δ ${metricInfo(metric).short}`,
  numeric: true,
  value: (c) => finite(c.verdict.metrics[metric]?.delta),
  html: (c) => `${formatDelta(c.verdict.metrics[metric]?.delta)}${baseToHead(c, metric)}`,
  tone: (c) => c.verdict.metrics[metric]?.status,
  perRun: true,
})

function qualityColumn(figure: QualityFigure): Column {
  const info = QUALITY_FIGURES[figure]
  const capitalised = info.label.charAt(0).toUpperCase() + info.label.slice(1)
  return {
    label: capitalised,
    numeric: true,
    whenPresent: true,
    extra: true,
    value: (c) => finite(info.read(c.quality)),
    html: (c) => {
      const v = info.read(c.quality)
      return v === undefined ? EMPTY : escapeHtml(info.format(v))
    },
  }
}

function modelHtml(cell: Measured): string {
  const runtime = [runtimeLabel(cell), cell.quant].filter(Boolean).join(' · ')
  return `${escapeHtml(modelName(cell))}<span class="sub">${escapeHtml(runtime)}</span>`
}

function scenarioHtml(cell: Measured): string {
  const w = cell.workload
  const rate = w.rate ? ` · ${formatNumber(w.rate)} req/s` : ''
  const shape = escapeHtml(`${w.inputTokens} → ${w.outputTokens} @ ${w.concurrency}`)
  return `${escapeHtml(cell.scenario)}<span class="sub">${shape}${rate}</span>`
}

function verdictHtml(cell: Measured): string {
  const flags = cell.flags.length ? ` <span class="flag" title="${escapeHtml(cell.flags.join('; '))}">⚑</span>` : ''
  const note = cell.verdict.note ? ` title="${escapeHtml(cell.verdict.note)}"` : ''
  return `<span${note}>${STATUS_MARK[cell.verdict.status]} ${escapeHtml(cell.verdict.status)}</span>${flags}`
}

const DECODE = headlineMean('Decode tok/s', 'decode', (m) => m.decode_tps?.mean)

export const COLUMNS: readonly Column[] = [
  { label: 'Model', numeric: false, value: modelName, html: modelHtml },
  { label: 'Scenario', numeric: false, value: (c) => c.scenario, html: scenarioHtml },
  // Sorted by how much attention the status needs (regressions first), shown as a mark and a word.
  {
    label: 'Verdict',
    numeric: true,
    value: (c) => STATUS_ORDER.indexOf(c.verdict.status),
    html: verdictHtml,
    words: true,
    tone: (c) => c.verdict.status,
    perRun: true,
  },
  ...PRIMARY_METRICS.map(delta),
  { label: 'Runtime', numeric: false, extra: true, value: (c) => runtimeLabel(c) },
  {
    label: 'Quant',
    numeric: false,
    extra: true,
    value: (c) => c.quant || null,
    html: (c) => (c.quant ? escapeHtml(c.quant) : EMPTY),
  },
  { ...DECODE, html: (c) => decodeHtml(c, DECODE.value(c) as number | null) },
  headlineMean('TTFT avg ms', 'ttft', (m) => m.ttft_ms?.mean),
  num('TTFT p99 ms', (m) => m.ttft_ms?.p99),
  num('TPOT avg ms', (m) => m.tpot_ms?.mean),
  num('TPOT p99 ms', (m) => m.tpot_ms?.p99),
  num('Total tok/s', (m) => m.total_tps),
  num('Output tok/s', (m) => m.output_tps),
  num('Per-user tok/s', (m) => m.per_user_tps),
  ...SHOWN_QUALITY_FIGURES.map(qualityColumn),
]

/** The share of requests that met the cell's `slo` (and good requests/s); the SLO is the cell's title. */
export const GOODPUT_COLUMN: Column = {
  label: 'Goodput',
  numeric: true,
  value: (c) => finite(c.metrics.goodput),
  html: (c) => {
    const share = c.metrics.goodput
    if (share === undefined || !c.workload.slo) return EMPTY
    const rate =
      c.metrics.request_goodput === undefined
        ? ''
        : `<span class="sub">${formatNumber(c.metrics.request_goodput)} req/s</span>`
    return `<span title="SLO: ${escapeHtml(formatSlo(c.workload.slo))}">${escapeHtml(formatPercent(share))}</span>${rate}`
  },
}

/** The page's columns: goodput's after the Δ columns only when some cell has an `slo`, quality only when measured. */
export function pageColumns(cells: readonly Measured[]): readonly Column[] {
  const shown = COLUMNS.filter((c) => !c.whenPresent || cells.some((cell) => c.value(cell) !== null))
  if (!cells.some((c) => c.workload.slo && c.metrics.goodput !== undefined)) return shown
  const at = shown.findIndex((c) => c.extra)
  return [...shown.slice(0, at), GOODPUT_COLUMN, ...shown.slice(at)]
}

/**
 * The columns of a page that shows a stored baseline rather than a run against one: no verdict or Δ, the headline
 * figures shown at once.
 */
export function baselineColumns(cells: readonly Measured[]): readonly Column[] {
  return pageColumns(cells)
    .filter((c) => !c.perRun)
    .map((c) => (c.headline ? { ...c, extra: false } : c))
}
