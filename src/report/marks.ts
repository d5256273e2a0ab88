/** Status marks and words, and the order of the headline's counts (cells are listed in severity.ts's order). */
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

/** The order of the headline's counts per status; cells themselves are listed most severe first (severity.ts). */
export const STATUS_ORDER: readonly CellVerdictStatus[] = [
  'regression',
  'error',
  'inconclusive',
  'improvement',
  'missing',
  'new',
  'pass',
]

export function statusCell(status: CellVerdictStatus): string {
  return `${STATUS_MARK[status]} ${status}`
}

/** A cell `select: changed` did not run (its verdict is `missing`, with `skipped`). */
export const SKIPPED_MARK = '⏭️'
export const SKIPPED_WORD = 'skipped (unchanged)'

export function cellStatusText(cell: CellResult): string {
  return cell.verdict.skipped ? `${SKIPPED_MARK} ${SKIPPED_WORD}` : statusCell(cell.verdict.status)
}
