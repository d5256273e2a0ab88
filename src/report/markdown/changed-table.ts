/**
 * The comment's compact table: only the cells a reviewer must look at — regressions, errors, inconclusive,
 * improvements beyond the limit, new and missing cells — at most CHANGED_ROWS of them, in five columns that fit
 * GitHub's conversation column (~780 px): the cell (target · scenario, engine and quant below), decode, TTFT,
 * TPOT or output, and why. Clauses several rows repeat are said once, as numbered notes under the table. The
 * full table of every cell follows, folded (render.ts).
 */
import { markdownTable } from 'markdown-table'
import { metricInfo, type GatedMetric } from '../../core/metrics.js'
import type { CellResult, CellVerdictStatus } from '../../core/results.js'
import { EMPTY, plural } from '../../core/format.js'
import { engineLabel } from '../../core/runtime.js'
import { clip, escapeText } from '../escape.js'
import { STATUS_MARK, SKIPPED_MARK } from '../marks.js'
import { footnoted, notesBlock, overturned, statusReasons } from './reasons.js'
import { sweepsTogether, withReference } from './table.js'
import { baseHeadText, goodputBaseHead } from './figure-text.js'

/** Rows of the compact table; the rest of the cells that need a look are counted under it. */
export const CHANGED_ROWS = 20
/** Characters of reasons a row keeps (repeated clauses become notes first). */
const WHY_MAX = 220

const NEEDS_A_LOOK: readonly CellVerdictStatus[] = [
  'regression',
  'error',
  'inconclusive',
  'improvement',
  'new',
  'missing',
]

/**
 * Cells a reviewer must look at; a cell `select: changed` skipped on purpose is not one. A cell whose stored-baseline
 * regression the same-box A/B overturned is one, and so is a cell this PR holds to a looser gate than its base.
 */
export function needsALook(cell: CellResult): boolean {
  if (cell.verdict.skipped) return false
  return NEEDS_A_LOOK.includes(cell.verdict.status) || overturned(cell) || !!cell.loosened?.length
}

/**
 * `🔴 **target · scenario**<br>engine · quant`: the cell, its engine and quant on a second line, and what the row's
 * changes are against when a same-box A/B decided the cell (`· Δ vs base arm`).
 */
function cellText(cell: CellResult): string {
  const mark = cell.verdict.skipped ? SKIPPED_MARK : STATUS_MARK[cell.verdict.status]
  const what = [engineLabel(cell), cell.quant].filter(Boolean).map((s) => escapeText(clip(s!, 40)))
  const second = withReference(what.join(' · '), cell)
  return `${mark} **${escapeText(clip(cell.target, 80))} · ${escapeText(clip(cell.scenario, 60))}**<br>${second}`
}

/** Output tok/s (with goodput) when some shown cell has an SLO or moved on output; TPOT otherwise. */
function thirdMetric(cells: readonly CellResult[]): GatedMetric {
  const output = cells.some(
    (c) =>
      c.workload.slo ||
      Object.values(c.verdict.metrics).some(
        (m) => (m.metric === 'output-throughput' || m.metric === 'goodput') && m.status !== 'pass',
      ),
  )
  return output ? 'output-throughput' : 'tpot'
}

/**
 * A figure base → head with its change (`28.6&nbsp;→&nbsp;25.8, −10.0%`, figure-text.ts), the values on one line: a
 * narrow column wraps the change after them, and the why, not the numbers.
 */
function figureCell(cell: CellResult, metric: GatedMetric): string {
  const shown = baseHeadText(cell, metric)
  if (metric !== 'output-throughput') return shown
  const goodput = goodputBaseHead(cell)
  if (!goodput) return shown
  return shown === EMPTY ? goodput : `${shown}<br>${goodput}`
}

/**
 * The compact table of `cells` (those that need a look, in attention order), its notes, and a line for the rows
 * over CHANGED_ROWS; undefined when no cell needs a look. `accepted`: the run's regressions were accepted.
 */
export function changedTable(cells: readonly CellResult[], accepted = false): string | undefined {
  const wanted = cells.filter(needsALook)
  const shown = sweepsTogether(wanted.slice(0, CHANGED_ROWS))
  if (!shown.length) return undefined
  const more = wanted.length - shown.length
  const third = thirdMetric(shown)
  const { lines, notes } = footnoted(shown.map(statusReasons), WHY_MAX)
  const metrics: GatedMetric[] = ['decode', 'ttft', third]
  const header = ['Cell', ...metrics.map((m) => (metricInfo(m).headline || { column: m }).column), 'Why']
  // Regressions the `benchmark-accept` label accepted say so on their row, as the lists do.
  const why = (cell: CellResult, i: number) =>
    `${lines[i] || EMPTY}${accepted && cell.verdict.status === 'regression' ? ' — accepted' : ''}`
  const rows = shown.map((cell, i) => [cellText(cell), ...metrics.map((m) => figureCell(cell, m)), why(cell, i)])
  const table = markdownTable([header, ...rows], { align: ['l', 'r', 'r', 'r', 'l'], alignDelimiters: false })
  const over = more > 0 ? `… and ${plural(more, 'more cell')} that need a look: see the table of every cell below.` : ''
  return [table, notesBlock(notes), over].filter(Boolean).join('\n\n')
}
