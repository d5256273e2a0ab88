/** The table of cells: headline figures, each with its change against the baseline, and a status mark. */
import { markdownTable } from 'markdown-table'
import type { GatedMetric } from '../config/plan.js'
import type { CellResult } from '../results.js'
import { clip, escapeText } from './escape.js'
import { figure } from './figures.js'
import { EMPTY, formatDelta, formatNumber, formatPercent } from './format.js'
import { statusCell } from './marks.js'

const HEADER = ['Status', 'Target', 'Scenario', 'Engine', 'Quant', 'Decode tok/s', 'TTFT ms', 'TPOT ms', 'Output tok/s']
const ALIGN = ['l', 'l', 'l', 'l', 'l', 'r', 'r', 'r', 'r']

export function cellsTable(cells: readonly CellResult[]): string {
  const rows = cells.map((cell) => [
    statusCell(cell.verdict.status),
    text(cell.target),
    text(cell.scenario),
    text(cell.engine),
    cell.quant ? text(cell.quant) : EMPTY,
    withAcceptance(figureText(cell, 'decode'), cell),
    figureText(cell, 'ttft'),
    figureText(cell, 'tpot'),
    figureText(cell, 'output-throughput'),
  ])
  // Unaligned delimiters keep a 400-row table about a third smaller.
  return markdownTable([HEADER, ...rows], { align: ALIGN, alignDelimiters: false })
}

/** `45.0 (−10.0%)`, bold when that metric regressed; the stat is named when it is not the mean. */
export function figureText(cell: CellResult, metric: GatedMetric): string {
  const f = figure(cell, metric)
  if (f.value === undefined) return EMPTY
  const stat = f.stat === 'mean' ? '' : ` ${f.stat}`
  const change = f.delta === undefined ? '' : ` (${formatDelta(f.delta)})`
  const body = `${formatNumber(f.value)}${stat}${change}`
  return f.regressed ? `**${body}**` : body
}

/** Speculative decoding's acceptance belongs next to the decode speed it explains. */
function withAcceptance(decode: string, cell: CellResult): string {
  const rate = cell.specDecode?.acceptanceRate
  return rate === undefined || decode === EMPTY ? decode : `${decode} · acc ${formatPercent(rate)}`
}

function text(value: string): string {
  return escapeText(clip(value, 80))
}
