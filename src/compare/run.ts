/** Run-level verdict and the baseline cells this run left out. */
import type { CellResult, CellVerdictStatus, RunVerdict } from '../core/results.js'
import { baselineCell, type BaselineView } from './baseline.js'
import { NOT_MEASURED_NOTE } from './judge.js'

export interface RunTally {
  verdict: RunVerdict
  /** Number of regressed cells that fail the gate. */
  regressions: number
  counts: Partial<Record<CellVerdictStatus, number>>
  /** Regressed cells accepted on purpose (they stay `regression`, and do not fail the run). */
  accepted?: { cells: number; by?: string }
  /** Cells whose level crept past a limit on the default branch though their own verdict was not a regression. */
  crept?: number
}

/**
 * Regression beats error beats inconclusive beats pass; `new`, `improvement` and `missing` pass. A cell whose level
 * crept past a limit on the default branch (`verdict.creep`) counts as a regression of the run. With
 * `acceptance` (a maintainer's `benchmark-accept` label), regressed cells are kept as they are and marked
 * accepted, and only the rest of the run decides its verdict.
 */
export function runVerdict(cells: CellResult[], acceptance?: { by?: string }): RunTally {
  const counts: Partial<Record<CellVerdictStatus, number>> = {}
  for (const cell of cells) counts[cell.verdict.status] = (counts[cell.verdict.status] ?? 0) + 1
  if (acceptance && counts.regression) {
    const verdict: RunVerdict = counts.error ? 'error' : counts.inconclusive ? 'inconclusive' : 'pass'
    return {
      verdict,
      regressions: 0,
      counts,
      accepted: { cells: counts.regression, ...(acceptance.by ? { by: acceptance.by } : {}) },
    }
  }
  const crept = cells.filter((c) => c.verdict.creep?.length && c.verdict.status !== 'regression').length
  const regressions = (counts.regression ?? 0) + crept
  const verdict: RunVerdict = regressions
    ? 'regression'
    : counts.error
      ? 'error'
      : counts.inconclusive
        ? 'inconclusive'
        : 'pass'
  return { verdict, regressions, counts, ...(crept && { crept }) }
}

/**
 * Cells the baseline measured (its file, or the newest history run) that this run did not, among those still
 * selected by `only`/`shard`. Such a cell is neither measured nor failed, so it is represented as `status: 'ok'`
 * (nothing went wrong), `metrics: null` (nothing was measured) and the verdict `missing`, which never fails the
 * gate. Baseline cells without metrics are themselves leftovers of older runs and are not reported again.
 */
export function missingCells(
  baseline: BaselineView,
  ran: Set<string>,
  selected: (id: string) => boolean,
  renamedTo: ReadonlyMap<string, string> = new Map(),
): CellResult[] {
  const ids = new Set<string>()
  for (const cell of baseline.results?.cells ?? []) if (baselineCell(baseline, cell.id)) ids.add(cell.id)
  for (const id of Object.keys(baseline.history.at(-1)?.cells ?? {})) ids.add(id)
  return [...ids]
    .filter((id) => !ran.has(id) && selected(id))
    .sort()
    .map((id) => notRun(id, baselineCell(baseline, id), renamedTo.get(id)))
}

function notRun(id: string, known: CellResult | undefined, renamed: string | undefined): CellResult {
  const slash = id.indexOf('/')
  return {
    id,
    target: known?.target ?? (slash < 0 ? id : id.slice(0, slash)),
    scenario: known?.scenario ?? (slash < 0 ? '' : id.slice(slash + 1)),
    engine: known?.engine ?? '',
    quant: known?.quant ?? null,
    model: known?.model ?? null,
    status: 'ok',
    error: null,
    flags: [],
    workload: known?.workload ?? { inputTokens: 0, outputTokens: 0, concurrency: 0, requests: 0, rate: null },
    metrics: null,
    rounds: [],
    info: {},
    verdict: {
      status: 'missing',
      metrics: {},
      note: renamed ? `${NOT_MEASURED_NOTE}; ${renamed} was compared with its baseline (renamed?)` : NOT_MEASURED_NOTE,
    },
  }
}
