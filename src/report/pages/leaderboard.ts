/**
 * The HTML leaderboard: one self-contained page — inline style and script, no external asset — with a
 * row per measured cell, sortable on every column, and the cells that failed listed below the table.
 */
import type { MetricsBlock } from '../../core/measurements.js'
import { PRIMARY_METRICS, metricInfo, type GatedMetric } from '../../core/metrics.js'
import { QUALITY_FIGURES, SHOWN_QUALITY_FIGURES, type QualityFigure } from '../../core/quality.js'
import type { CellResult, ResultsFile, RunMeta } from '../../core/results.js'
import { clip, escapeHtml, safeUrl } from '../escape.js'
import { EMPTY, formatDelta, formatNumber, formatPercent, plural } from '../../core/format.js'
import { formatSlo } from '../../core/workload.js'
import { pageHead } from './leaderboard-style.js'
import { sortScript, type SortValue } from './leaderboard-sort.js'
import { STATUS_MARK, STATUS_ORDER } from '../marks.js'
import { runtimeLabel } from '../../core/runtime.js'
import { CURVE_CSS, curvesSection, sweepCurves } from '../sweep-curves.js'
import { decodeHtml } from './decode-cell.js'

export { sortRows, sortScript, type SortDirection, type SortRow, type SortValue } from './leaderboard-sort.js'

export interface LeaderboardContext {
  title?: string
  runUrl?: string
  sha?: string
}

export type Measured = CellResult & { metrics: MetricsBlock }

interface Column {
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
}

export const TABLE_ID = 'leaderboard'

const num = (label: string, value: (m: MetricsBlock) => number): Column => ({
  label,
  numeric: true,
  value: (c) => finite(value(c.metrics)),
})

const delta = (metric: GatedMetric): Column => ({
  label: `Δ ${metricInfo(metric).short}`,
  numeric: true,
  value: (c) => finite(c.verdict.metrics[metric]?.delta),
  html: (c) => formatDelta(c.verdict.metrics[metric]?.delta),
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
    value: (c) => finite(info.read(c.quality)),
    html: (c) => {
      const v = info.read(c.quality)
      return v === undefined ? EMPTY : escapeHtml(info.format(v))
    },
  }
}

export const COLUMNS: readonly Column[] = [
  { label: 'Model', numeric: false, value: modelName },
  { label: 'Runtime', numeric: false, value: runtime },
  {
    label: 'Quant',
    numeric: false,
    value: (c) => c.quant || null,
    html: (c) => (c.quant ? escapeHtml(c.quant) : EMPTY),
  },
  { label: 'Scenario', numeric: false, value: (c) => c.scenario, html: scenarioHtml },
  num('Total tok/s', (m) => m.total_tps),
  num('Output tok/s', (m) => m.output_tps),
  num('Per-user tok/s', (m) => m.per_user_tps),
  num('TTFT avg ms', (m) => m.ttft_ms?.mean),
  num('TTFT p99 ms', (m) => m.ttft_ms?.p99),
  num('TPOT avg ms', (m) => m.tpot_ms?.mean),
  num('TPOT p99 ms', (m) => m.tpot_ms?.p99),
  { ...num('Decode tok/s', (m) => m.decode_tps?.mean), html: decodeHtml },
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
        : ` <span class="dim">${formatNumber(c.metrics.request_goodput)} req/s</span>`
    return `<span title="SLO: ${escapeHtml(formatSlo(c.workload.slo))}">${escapeHtml(formatPercent(share))}</span>${rate}`
  },
}

/** The page's columns: goodput's, before the verdict, only when some cell has an `slo`. */
export function pageColumns(cells: readonly Measured[]): readonly Column[] {
  if (!cells.some((c) => c.workload.slo && c.metrics.goodput !== undefined)) return COLUMNS
  const at = COLUMNS.findIndex((c) => c.label === 'Verdict')
  return [...COLUMNS.slice(0, at), GOODPUT_COLUMN, ...COLUMNS.slice(at)]
}

/** The leaderboard page for a results file; everything from engines and configs is escaped. */
export function renderLeaderboard(results: ResultsFile, ctx: LeaderboardContext = {}): string {
  const measured = measuredCells(results.cells)
  const failed = results.cells.filter((c) => c.status === 'error')
  const unmeasured = results.cells.filter((c) => c.status === 'ok' && c.metrics === null)
  const title = escapeHtml(ctx.title ?? `LLM serving leaderboard · ${results.run.hardware}`)
  const curves = runCurves(results, measured)
  return `${pageHead(title, curves ? CURVE_CSS : '')}
<header>
<h1>${title}</h1>
<p class="meta">${metaLine(results, ctx)}</p>
</header>
<main>
${measured.length ? leaderboardTable(measured, pageColumns(measured)) : '<p>No cell was measured.</p>'}
${curves}${failedSection(failed)}${unmeasuredSection(unmeasured)}</main>
<script>
${sortScript(TABLE_ID)}
</script>
</body>
</html>
`
}

/**
 * The run's serving curves: this run's figures, and the reference each cell's verdict was judged against (the
 * baseline file's figure, or the median of the default branch's recent runs), as `verdict.reference` records it.
 */
function runCurves(results: ResultsFile, measured: readonly Measured[]): string {
  const curves = sweepCurves(measured, (c) => c.verdict.reference?.['output-throughput']?.value)
  const sha = results.summary?.baseline?.sha
  return curvesSection(curves, {
    current: 'this run',
    baseline: sha ? `baseline ${sha.slice(0, 7)}` : 'baseline',
    note:
      'Per concurrency sweep, output tok/s against per-user tok/s at each concurrency, one colour per target: solid this run, ' +
      'dashed the baseline its verdicts compared with (its output tok/s; per-user tok/s is that divided by the concurrency). ' +
      'Both axes start at 0.',
  })
}

/** The cells with figures, in the leaderboard's default order. */
export function measuredCells(cells: readonly CellResult[]): Measured[] {
  return defaultOrder(cells.filter((c): c is Measured => c.status === 'ok' && c.metrics !== null))
}

/** Grouped by model, then runtime (numeric collation, so `9B` sorts before `27B`); plan order within a group. */
function defaultOrder(cells: Measured[]): Measured[] {
  const collate = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' })
  return cells
    .map((cell, index) => ({ cell, index }))
    .sort(
      (a, b) =>
        collate(modelName(a.cell), modelName(b.cell)) || collate(runtime(a.cell), runtime(b.cell)) || a.index - b.index,
    )
    .map((x) => x.cell)
}

/** The sortable table; `rowAttrs` adds attributes (already escaped) to each row. */
export function leaderboardTable(
  cells: readonly Measured[],
  columns: readonly Column[] = COLUMNS,
  rowAttrs: (cell: Measured) => string = () => '',
): string {
  const heads = columns.map(
    (col) =>
      `<th scope="col"${col.numeric && !col.words ? ' class="num"' : ''}${col.numeric ? ' data-type="number"' : ''}><button type="button">${escapeHtml(col.label)}</button></th>`,
  )
  const rows = cells.map(
    (cell) =>
      `<tr data-id="${escapeHtml(cell.id)}"${rowAttrs(cell)}>${columns.map((col) => td(col, cell)).join('')}</tr>`,
  )
  return `<table id="${TABLE_ID}">
<caption>${plural(cells.length, 'measured cell')}: steady-state figures${columns.some((c) => c.perRun) ? ', Δ against the baseline' : ''}. Select a column header to sort.</caption>
<thead><tr>${heads.join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`
}

function td(col: Column, cell: Measured): string {
  const value = col.value(cell)
  const html = col.html
    ? col.html(cell)
    : col.numeric
      ? formatNumber(value as number | null)
      : escapeHtml(String(value ?? EMPTY))
  const classes = [col.numeric && !col.words ? 'num' : '', col.tone?.(cell) ?? ''].filter(Boolean).join(' ')
  const attr = value === null ? '' : escapeHtml(String(value))
  return `<td${classes ? ` class="${escapeHtml(classes)}"` : ''} data-value="${attr}">${html}</td>`
}

function metaLine(results: ResultsFile, ctx: LeaderboardContext): string {
  const run: RunMeta = results.run
  const sha = ctx.sha || run.sha
  const baseline = results.summary?.baseline
  const url = safeUrl(ctx.runUrl || run.runUrl)
  return [
    sha ? `commit <code title="${escapeHtml(sha)}">${escapeHtml(sha.slice(0, 12))}</code>` : 'commit unknown',
    `hardware <code>${escapeHtml(run.hardware)}</code>`,
    formatDate(run.finishedAt || run.startedAt),
    `${escapeHtml(run.tool.name)} ${escapeHtml(run.tool.version)}`,
    baseline
      ? `baseline <code title="${escapeHtml(baseline.sha)}">${escapeHtml(baseline.sha.slice(0, 12))}</code>`
      : 'no baseline',
    url ? `<a href="${escapeHtml(url)}">workflow run</a>` : '',
  ]
    .filter(Boolean)
    .join(' · ')
}

function failedSection(cells: readonly CellResult[]): string {
  if (!cells.length) return ''
  const items = cells.map(
    (c) =>
      `<li><strong>${escapeHtml(c.id)}</strong> <span class="dim">${escapeHtml(modelName(c))} · ${escapeHtml(runtime(c))}</span>` +
      `<pre>${escapeHtml(clip(c.error ?? c.verdict.note ?? 'error', 4000))}</pre></li>`,
  )
  return `<section id="errors">\n<h2>${STATUS_MARK.error} ${plural(cells.length, 'cell')} failed</h2>\n<ul>\n${items.join('\n')}\n</ul>\n</section>\n`
}

function unmeasuredSection(cells: readonly CellResult[]): string {
  if (!cells.length) return ''
  const items = cells.map(
    (c) =>
      `<li><strong>${escapeHtml(c.id)}</strong> <span class="dim">${escapeHtml(c.verdict.note ?? c.verdict.status)}</span></li>`,
  )
  return `<section id="unmeasured">\n<h2>Not measured</h2>\n<ul>\n${items.join('\n')}\n</ul>\n</section>\n`
}

export function modelName(cell: CellResult): string {
  return cell.model || cell.target
}

function runtime(cell: CellResult): string {
  return runtimeLabel(cell)
}

function scenarioHtml(cell: Measured): string {
  const w = cell.workload
  const rate = w.rate ? ` · ${formatNumber(w.rate)} req/s` : ''
  const shape = escapeHtml(`${w.inputTokens} → ${w.outputTokens} @ ${w.concurrency}`)
  return `${escapeHtml(cell.scenario)} <span class="dim">${shape}${rate}</span>`
}

function verdictHtml(cell: Measured): string {
  const flags = cell.flags.length ? ` <span class="flag" title="${escapeHtml(cell.flags.join('; '))}">⚑</span>` : ''
  const note = cell.verdict.note ? ` title="${escapeHtml(cell.verdict.note)}"` : ''
  return `<span${note}>${STATUS_MARK[cell.verdict.status]} ${escapeHtml(cell.verdict.status)}</span>${flags}`
}

export function formatDate(iso: string | undefined): string {
  const time = iso ? Date.parse(iso) : NaN
  return Number.isNaN(time)
    ? escapeHtml(iso || 'date unknown')
    : `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

function finite(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}
