/**
 * A cell's roofline as the report and the leaderboard say it (core/roofline.ts): `64 % of roofline`, the ceiling
 * and what it came from, and, once for all the cells it applies to, why a cell has none. Plain text: callers escape.
 */
import { formatNumber } from '../core/format.js'
import { ceilingText, hasFigures } from '../core/roofline.js'
import type { CellResult } from '../core/results.js'

/** `64 % of roofline`; undefined for a cell without roofline figures. */
export function rooflineShare(cell: CellResult): string | undefined {
  return hasFigures(cell.roofline) ? `${Math.round(cell.roofline.share * 100)} % of roofline` : undefined
}

/** `decode 21.9 tok/s · 64 % of roofline · ceiling 34.2 tok/s (273 GB/s from … ÷ …)`. */
export function rooflineLine(cell: CellResult): string | undefined {
  const r = cell.roofline
  if (!hasFigures(r)) return undefined
  return `decode ${formatNumber(r.decodeTps)} tok/s · ${rooflineShare(cell)} · ceiling ${ceilingText(r)}`
}

/** `no roofline for a, b: <reason>`, one line per reason; none when every cell that could have one has it. */
export function rooflineGaps(cells: readonly CellResult[]): string[] {
  const byReason = new Map<string, string[]>()
  for (const c of cells) {
    const r = c.roofline
    if (!r || hasFigures(r)) continue
    byReason.set(r.unavailable, [...(byReason.get(r.unavailable) ?? []), c.id])
  }
  return [...byReason].map(([reason, ids]) => `no roofline for ${ids.join(', ')}: ${reason}`)
}
