/**
 * Reads back the figures a report shows for each cell and checks them against the verdicts of its results file:
 * the comment's compact table (base → head, change), the table of every cell (head, change), the why lines
 * (`decode tok/s 28.6 → 25.8 tok/s, −10.0% (…)`) and the leaderboard page's Δ columns. A shown number agrees
 * when it is the verdict's rounded to the digits shown; bold must mark exactly the metrics whose verdict is a
 * regression. Each check returns its problems, one line each, and how many figures it compared.
 */
import { HEADLINE_METRICS, PRIMARY_METRICS, isRelative, metricInfo, metricLabel } from '../../src/core/metrics.js'
import type { GatedMetric } from '../../src/core/metrics.js'
import type { CellResult, MetricVerdict, ResultsFile } from '../../src/core/results.js'

export interface Checked {
  problems: string[]
  /** Figures compared with a verdict. */
  compared: number
}

interface Shown {
  value: string
  base?: string
  /** The change in percent, as shown (`−10.0`). */
  delta?: string
  stat?: string
  bold: boolean
}

const NUMBER = '−?\\d{1,3}(?:,\\d{3})*(?:\\.\\d+)?'
const STAT = '(?: (p50|p90|p99))?'
const DELTA = '([−+]?\\d+\\.\\d)%'
/** `**25.8 (−9.9%)**`, `534 (+598.7%) · hit 0%`, `25.8<br>(−9.9%)`: the table of every cell, wide or folded narrow. */
const WIDE = new RegExp(`^(\\*\\*)?(${NUMBER})${STAT}(?:(?: |<br>)\\(${DELTA}\\))?(\\*\\*)?`)
/** `**28.6&nbsp;→&nbsp;25.8, −9.9%**`: the compact table. */
const COMPACT = new RegExp(`^(\\*\\*)?(?:(${NUMBER})&nbsp;→&nbsp;)?(${NUMBER})${STAT}(?:, ${DELTA})?(\\*\\*)?`)

/** Every markdown table of `md`: its header cells and its rows' cells, trimmed, `\|` kept inside a cell. */
export function markdownTables(md: string): { header: string[]; rows: string[][] }[] {
  const split = (line: string) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim())
  const tables: { header: string[]; rows: string[][] }[] = []
  let block: string[] = []
  for (const line of [...md.split('\n'), '']) {
    if (line.startsWith('|')) block.push(line)
    else {
      if (block.length >= 2) tables.push({ header: split(block[0]), rows: block.slice(2).map(split) })
      block = []
    }
  }
  return tables
}

/** A shown number: its value and half a unit of its last digit. */
function number(text: string): { value: number; tolerance: number } {
  const plain = text.replace(/−/g, '-').replace(/,/g, '')
  const decimals = plain.includes('.') ? plain.length - plain.indexOf('.') - 1 : 0
  return { value: Number(plain), tolerance: 0.5 * 10 ** -decimals * (1 + 1e-9) }
}

function agrees(shown: string, actual: number): boolean {
  const { value, tolerance } = number(shown)
  return Math.abs(value - actual) <= tolerance + Math.abs(actual) * 1e-12
}

const unescape = (text: string) => text.replace(/\\(.)/g, '$1')

const COLUMN_METRIC = new Map<string, GatedMetric>(
  HEADLINE_METRICS.flatMap((m) => {
    const head = metricInfo(m).headline
    return head ? [[head.column, m] as const] : []
  }),
)

/** The shown figure against the metric's verdict (or, without one, only that it is not bold). */
function compare(where: string, shown: Shown, m: MetricVerdict | undefined, withBase: boolean): string[] {
  const problems: string[] = []
  const say = (what: string) => problems.push(`${where}: ${what}`)
  const failed = m?.status === 'regression'
  if (shown.bold !== failed) say(`bold is ${shown.bold}, the verdict is ${m?.status ?? 'none'}`)
  if (!m) return problems
  if (!agrees(shown.value, m.current)) say(`shows ${shown.value}, the verdict's current is ${m.current}`)
  if ((shown.stat ?? 'mean') !== m.stat) say(`shows stat ${shown.stat ?? 'mean'}, the verdict's is ${m.stat}`)
  if (withBase && (shown.base === undefined || !agrees(shown.base, m.baseline)))
    say(`shows base ${shown.base}, the verdict's baseline is ${m.baseline}`)
  const delta = typeof m.delta === 'number' && Number.isFinite(m.delta) && isRelative(m.metric) ? m.delta : undefined
  if (delta !== undefined && (shown.delta === undefined || !agrees(shown.delta, delta * 100)))
    say(`shows change ${shown.delta}%, the verdict's is ${delta * 100}%`)
  return problems
}

function parse(text: string, compact: boolean): Shown | undefined {
  if (compact) {
    const m = COMPACT.exec(text)
    return m ? { bold: !!m[1] && !!m[6], base: m[2], value: m[3], stat: m[4], delta: m[5] } : undefined
  }
  const m = WIDE.exec(text)
  return m ? { bold: !!m[1] && !!m[5], value: m[2], stat: m[3], delta: m[4] } : undefined
}

/** A row of a table of cells: which table (the compact one says why), the cell, and its text per column header. */
export interface CellRow {
  compact: boolean
  id: string
  columns: Map<string, string>
}

/**
 * The rows of every table of cells in `md`: the compact table (`Cell … Why`), and the table of every cell, which
 * names the cell in its first column (`**target · scenario**`) or in two (`Target`, `Scenario`).
 */
export function cellRows(md: string): CellRow[] {
  return markdownTables(md).flatMap(({ header, rows }) => {
    const named = header[0] === 'Cell'
    if (!named && header[0] !== 'Status') return []
    return rows.map((row) => ({
      compact: header.includes('Why'),
      id: named
        ? (/\*\*(.+?) · (.+?)\*\*/.exec(row[0]) ?? []).slice(1).map(unescape).join('/')
        : `${unescape(row[header.indexOf('Target')])}/${unescape(row[header.indexOf('Scenario')])}`,
      columns: new Map(header.map((column, i) => [column, row[i]])),
    }))
  })
}

/**
 * Every headline figure of every table of `md` (the compact table's and the table of every cell) against the
 * cells' verdicts. `cellsShown`: the cell ids the tables had rows for.
 */
export function tableFigures(md: string, results: ResultsFile): Checked & { cellsShown: Set<string> } {
  const byId = new Map(results.cells.map((c) => [c.id, c]))
  const problems: string[] = []
  const cellsShown = new Set<string>()
  let compared = 0
  for (const { compact, id, columns } of cellRows(md)) {
    const cell = byId.get(id)
    if (!cell) {
      problems.push(`a row names ${id}, which the results file lacks`)
      continue
    }
    cellsShown.add(id)
    for (const [column, text] of columns) {
      const metric = COLUMN_METRIC.get(column)
      if (!metric || text === '—') continue
      const shown = parse(text, compact)
      const where = `${compact ? 'compact' : 'full'} table, ${id}, ${column} "${text}"`
      if (!shown) {
        problems.push(`${where}: not a figure`)
        continue
      }
      const verdict = cell.verdict.metrics[metric]
      if (verdict) compared++
      problems.push(...compare(where, shown, verdict, compact))
    }
  }
  return { problems, compared, cellsShown }
}

/**
 * Every `label base → head unit, change` a list line of `md` says of a cell (`- … **id**: …`), against its
 * verdict; a metric's values said of a cell must be its verdict's.
 */
export function whyFigures(md: string, results: ResultsFile): Checked {
  const problems: string[] = []
  let compared = 0
  for (const cell of results.cells) {
    const lines = md.split('\n').filter((l) => l.startsWith('- ') && l.includes(`**${cell.id}**:`))
    for (const m of Object.values(cell.verdict.metrics)) {
      if (!isRelative(m.metric)) continue
      const label = metricLabel(m.metric, m.stat).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
      const unit = metricInfo(m.metric).unit
      const said = new RegExp(`(?<![\\w/])${label} (${NUMBER}) → (${NUMBER}) ${unit}, ${DELTA}`, 'g')
      const bold = m.status === 'regression'
      for (const line of lines)
        for (const [, base, value, delta] of line.matchAll(said)) {
          compared++
          problems.push(...compare(`why of ${cell.id}, ${m.metric}`, { base, value, delta, bold }, m, true))
        }
    }
  }
  return { problems, compared }
}

/** A leaderboard Δ cell's text: `−10.0%`, or `−10.0%50.0 → 45.0 tok/s` with its values. */
const VALUES = new RegExp(`^([−+]?\\d+\\.\\d)%(?:\\s*(${NUMBER}) → (${NUMBER}))?`)

/** The leaderboard page's Δ columns (`Δ decode`, `Δ TTFT`) against each cell's verdict, by the row's `data-id`. */
export function leaderboardDeltas(html: string, results: ResultsFile): Checked {
  const text = (s: string) =>
    s
      .replace(/<[^>]*>/g, '')
      .replace(/&amp;/g, '&')
      .trim()
  const head = /<thead>([\s\S]*?)<\/thead>/.exec(html)?.[1] ?? ''
  const labels = [...head.matchAll(/<th\b[^>]*>([\s\S]*?)<\/th>/g)].map((m) => text(m[1]))
  const columns = labels.flatMap((label, i) => {
    const metric = PRIMARY_METRICS.find((m) => label === `Δ ${metricInfo(m).short}`)
    return metric ? [{ i, metric }] : []
  })
  const problems = columns.length ? [] : [`no Δ column among ${labels.join(', ')}`]
  let compared = 0
  const byId = new Map(results.cells.map((c) => [c.id, c]))
  for (const [, id, body] of html.matchAll(/<tr data-id="([^"]*)"[^>]*>([\s\S]*?)<\/tr>/g)) {
    const cell: CellResult | undefined = byId.get(text(id))
    const cells = [...body.matchAll(/<td\b[^>]*>([\s\S]*?)<\/td>/g)].map((m) => text(m[1]))
    for (const { i, metric } of columns) {
      const m = cell?.verdict.metrics[metric]
      const shown = cells[i]
      const delta = typeof m?.delta === 'number' && Number.isFinite(m.delta) ? m.delta : undefined
      if (delta === undefined) {
        if (shown !== '—') problems.push(`leaderboard ${id} Δ ${metric}: shows ${shown} without a verdict's change`)
        continue
      }
      compared++
      // The change first; the values base → head after it, where the page shows them.
      const [, percent, base, value] = VALUES.exec(shown ?? '') ?? []
      if (percent === undefined || !agrees(percent, delta * 100))
        problems.push(`leaderboard ${id} Δ ${metric}: shows ${shown}, the verdict's change is ${delta * 100}%`)
      if (base !== undefined && !(agrees(base, m!.baseline) && agrees(value, m!.current)))
        problems.push(`leaderboard ${id} Δ ${metric}: shows ${shown}, the verdict's ${m!.baseline} → ${m!.current}`)
    }
  }
  return { problems, compared }
}
