/** Status marks and the order cells are listed in: what needs attention first. */
import type { CellResult, CellVerdictStatus, RunVerdict } from '../core/results.js'

export const STATUS_MARK: Record<CellVerdictStatus, string> = {
  regression: '🔴',
  error: '💥',
  inconclusive: '🟡',
  improvement: '🟢',
  missing: '⚪',
  new: '🆕',
  pass: '✅',
}

export const STATUS_WORD: Record<CellVerdictStatus, string> = {
  regression: 'regressed',
  error: 'error',
  inconclusive: 'inconclusive',
  improvement: 'improved',
  missing: 'missing',
  new: 'new',
  pass: 'passed',
}

export const RUN_MARK: Record<RunVerdict, string> = { pass: '✅', regression: '❌', error: '💥', inconclusive: '⚠️' }

export const STATUS_ORDER: readonly CellVerdictStatus[] = [
  'regression',
  'error',
  'inconclusive',
  'improvement',
  'missing',
  'new',
  'pass',
]

/** Regressions, errors, inconclusive, then the rest; plan order within each group. */
export function byAttention(cells: readonly CellResult[]): CellResult[] {
  const rank = (c: CellResult) => STATUS_ORDER.indexOf(c.verdict.status)
  return cells
    .map((cell, index) => ({ cell, index }))
    .sort((a, b) => rank(a.cell) - rank(b.cell) || a.index - b.index)
    .map((x) => x.cell)
}

export function statusCell(status: CellVerdictStatus): string {
  return `${STATUS_MARK[status]} ${status}`
}

/** A cell `select: changed` did not run (its verdict is `missing`, with `skipped`). */
export const SKIPPED_MARK = '⏭️'
export const SKIPPED_WORD = 'skipped (unchanged)'

export function cellStatusText(cell: CellResult): string {
  return cell.verdict.skipped ? `${SKIPPED_MARK} ${SKIPPED_WORD}` : statusCell(cell.verdict.status)
}
