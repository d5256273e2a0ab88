/**
 * The leaderboard's decode cell: the figure, and beside it the cell's share of the box's memory-bandwidth ceiling
 * (`64 % of roofline`), its ceiling and sources in the hover title.
 */
import { formatNumber } from '../../core/format.js'
import { ceilingText, hasFigures } from '../../core/roofline.js'
import type { CellResult } from '../../core/results.js'
import { escapeHtml } from '../escape.js'
import { rooflineShare } from '../roofline-text.js'

/** `value`: the figure shown, the cell's mean unless told (the verdict's, leaderboard-columns.ts). */
export function decodeHtml(
  cell: CellResult,
  value: number | null | undefined = cell.metrics?.decode_tps?.mean,
): string {
  const decode = formatNumber(value)
  const share = rooflineShare(cell)
  if (!share || !hasFigures(cell.roofline)) return decode
  const title = escapeHtml(`ceiling ${ceilingText(cell.roofline)}`)
  return `${decode} <span class="dim" title="${title}">· ${escapeHtml(share)}</span>`
}
