/**
 * Confirmation: a cell that looks regressed is measured once more (while its server is still up) and fails only
 * if the fresh measurement regresses too. The pipeline judges the re-measured cell on its own with `judgeCell`
 * and folds the two verdicts with `confirmVerdict`; with `confirm: n` it repeats while `needsConfirmation` holds.
 */
import type { CellVerdict, MetricVerdict } from '../core/results.js'

export function needsConfirmation(verdict: CellVerdict): boolean {
  return verdict.status === 'regression'
}

/**
 * Folds a re-measurement into the verdict. Confirmed: still a regression, with the first measurement's figures
 * (the ones the report shows) and the re-measurement's reasons in the note. Not confirmed: inconclusive, because
 * two measurements of the same code disagree; the regressed metrics say so.
 */
export function confirmVerdict(first: CellVerdict, second: CellVerdict): CellVerdict {
  if (first.status !== 'regression') return first
  const confirmed = (first.confirmed ?? 0) + 1
  const again = Object.values(second.metrics)
    .filter((m) => m.status === 'regression')
    .map((m) => m.reason)
  if (second.status === 'regression') {
    return { ...first, confirmed, note: join(first.note, `confirmed by re-measurement ${confirmed}: ${again.join('; ')}`) }
  }
  const why = second.status === 'error' ? `the re-measurement failed (${second.note ?? 'error'})` : `re-measurement ${confirmed} was ${second.status}`
  const metrics: CellVerdict['metrics'] = {}
  for (const [key, m] of Object.entries(first.metrics) as [keyof CellVerdict['metrics'], MetricVerdict][]) {
    metrics[key] = m.status === 'regression' ? { ...m, status: 'inconclusive', reason: `${m.reason}; not confirmed` } : m
  }
  return { ...first, status: 'inconclusive', metrics, confirmed, note: join(first.note, `regressed once, not confirmed: ${why}`) }
}

function join(a: string | undefined, b: string): string {
  return a ? `${a}; ${b}` : b
}
