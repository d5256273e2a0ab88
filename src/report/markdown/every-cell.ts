/**
 * The comment's folded table of every cell, narrow enough for GitHub's conversation column (~780 px) without
 * scrolling sideways: the cell in one column (status mark, target · scenario, then engine · quant · quality on a
 * second line), then one column per headline metric whose figure keeps its change under it and what explains it
 * (acceptance, hit rate, goodput) on lines below. The job summary and `report.md` keep the wide table (table.ts).
 */
import { markdownTable } from 'markdown-table'
import type { CellResult } from '../../core/results.js'
import { EMPTY } from '../../core/format.js'
import { engineLabel } from '../../core/runtime.js'
import { clip, escapeText } from '../escape.js'
import { cellStatusText } from '../marks.js'
import { DISTURBED_MARK } from './box-lines.js'
import { COLUMNS, columnText, qualityText, sweepsTogether, withReference } from './table.js'

/**
 * `🔴 regression<br>**target · scenario**<br>vLLM (sim) · fp8 · acc 100%`, with ⚠️ when the box was disturbed during its
 * rounds: the status in words as the wide table has it (`⏭️ skipped (unchanged)`), on a line of its own so the column
 * stays as narrow as the cell's name.
 */
function cellText(cell: CellResult): string {
  const disturbed = cell.verdict.disturbed?.length ? ` ${DISTURBED_MARK}` : ''
  const quality = qualityText(cell)
  const what = [engineLabel(cell), cell.quant].filter(Boolean).map((s) => escapeText(clip(s!, 40)))
  const second = withReference([...what, ...(quality === EMPTY ? [] : [quality])].join(' · '), cell)
  return `${cellStatusText(cell)}${disturbed}<br>**${escapeText(clip(cell.target, 80))} · ${escapeText(clip(cell.scenario, 60))}**<br>${second}`
}

/** A figure's change and what explains it each on a line of their own (`25.9<br>(−9.6%)`), so the column stays narrow. */
function stacked(text: string): string {
  return text.replaceAll(' · ', '<br>').replace(/ \((?=[+−\d])/, '<br>(')
}

export function everyCellTable(cells: readonly CellResult[], trends: Record<string, readonly number[]> = {}): string {
  const rows = sweepsTogether(cells).map((cell) => [
    cellText(cell),
    ...COLUMNS.map((column) => stacked(columnText(cell, column, trends))),
  ])
  const header = ['Cell', ...COLUMNS.map((c) => c.head.column)]
  return markdownTable([header, ...rows], { align: ['l', ...COLUMNS.map(() => 'r')], alignDelimiters: false })
}
