/**
 * The HTML leaderboard: one self-contained page — inline style and script, no external asset — with a
 * row per measured cell, sortable on every column, and the cells that failed listed below the table.
 */
import type { CellResult, ResultsFile, RunMeta } from '../../core/results.js'
import { clip, escapeHtml, safeUrl } from '../escape.js'
import { EMPTY, formatNumber, plural } from '../../core/format.js'
import { FIGURES_TOGGLE_ID, pageHead } from './leaderboard-style.js'
import { sortScript } from './leaderboard-sort.js'
import { STATUS_MARK } from '../marks.js'
import { runtimeLabel } from '../../core/runtime.js'
import { CURVE_CSS, curvesSection, sweepCurves } from '../sweep-curves.js'
import { COLUMNS, modelName, pageColumns, type Column, type Measured } from './leaderboard-columns.js'

export { FIGURES_TOGGLE_ID } from './leaderboard-style.js'
export { sortRows, sortScript, type SortDirection, type SortRow, type SortValue } from './leaderboard-sort.js'
export {
  baselineColumns,
  COLUMNS,
  GOODPUT_COLUMN,
  modelName,
  pageColumns,
  type Column,
  type Measured,
} from './leaderboard-columns.js'

export interface LeaderboardContext {
  title?: string
  runUrl?: string
  sha?: string
}

export const TABLE_ID = 'leaderboard'

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
export function runCurves(results: ResultsFile, measured: readonly Measured[]): string {
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
      `<th scope="col"${classAttr([col.numeric && !col.words ? 'num' : '', col.extra ? EXTRA : ''])}${col.numeric ? ' data-type="number"' : ''}><button type="button">${escapeHtml(col.label)}</button></th>`,
  )
  const rows = cells.map(
    (cell) =>
      `<tr data-id="${escapeHtml(cell.id)}"${rowAttrs(cell)}>${columns.map((col) => td(col, cell)).join('')}</tr>`,
  )
  const extras = columns.filter((c) => c.extra).length
  const perRun = columns.some((c) => c.perRun)
  return `<div class="board">${extras ? figuresToggle(extras) : ''}<div class="table-wrap"><table id="${TABLE_ID}">
<caption>${plural(cells.length, 'measured cell')}: ${perRun ? 'the verdict and its Δ (base → head), then the ' : ''}steady-state figures. Select a column header to sort.</caption>
<thead><tr>${heads.join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div></div>`
}

/** The class of the raw figures the reader shows with the page's one checkbox (leaderboard-style.ts). */
const EXTRA = 'extra'

/** A checkbox, no script: its `:checked` state shows the extra columns (leaderboard-style.ts). */
function figuresToggle(extras: number): string {
  return `<input type="checkbox" id="${FIGURES_TOGGLE_ID}" class="toggle"><label for="${FIGURES_TOGGLE_ID}">show all figures (${extras} more columns)</label>`
}

function classAttr(classes: readonly string[]): string {
  const list = classes.filter(Boolean).join(' ')
  return list ? ` class="${escapeHtml(list)}"` : ''
}

function td(col: Column, cell: Measured): string {
  const value = col.value(cell)
  const html = col.html
    ? col.html(cell)
    : col.numeric
      ? formatNumber(value as number | null)
      : escapeHtml(String(value ?? EMPTY))
  const classes = classAttr([col.numeric && !col.words ? 'num' : '', col.extra ? EXTRA : '', col.tone?.(cell) ?? ''])
  const attr = value === null ? '' : escapeHtml(String(value))
  return `<td${classes} data-value="${attr}">${html}</td>`
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
      ? `baseline <code title="${escapeHtml(baseline.sha)}">${escapeHtml(baseline.sha.slice(0, 12))}</code> (${escapeHtml(baseline.source)})`
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

function runtime(cell: CellResult): string {
  return runtimeLabel(cell)
}

export function formatDate(iso: string | undefined): string {
  const time = iso ? Date.parse(iso) : NaN
  return Number.isNaN(time)
    ? escapeHtml(iso || 'date unknown')
    : `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`
}
