/** Finding the baseline of one cell and metric: the history median when there are several runs, else the baseline file. */
import type { CellResult, HistoryEntry, ResultsFile } from '../core/results.js'
import { metricKey, readMetric, type GateStat, type GatedMetric } from '../core/metrics.js'
import { isUsable, median } from '../core/stats.js'

export interface BaselineView {
  /** The baseline results file (single reference), if any. */
  results?: ResultsFile
  /** Recent default-branch runs, newest last. */
  history: HistoryEntry[]
}

/** Only the newest runs count, so an old level the default branch has since left does not hold the median back. */
export const HISTORY_WINDOW = 10

export interface BaselineSample {
  /** The value compared against: the median of the runs' steady values, or the single run's. */
  value: number
  source: 'history' | 'file'
  /** Steady value of each run (one for a baseline file). */
  steady: number[]
  /** Per-round samples of each run, for the noise estimate (may be empty arrays). */
  rounds: number[][]
}

/** A baseline cell that was measured (a missing or failed cell in a stored file is no reference). */
export function baselineCell(view: BaselineView, id: string): CellResult | undefined {
  const cell = view.results?.cells.find((c) => c.id === id)
  return cell && cell.status === 'ok' && cell.metrics ? cell : undefined
}

/** True when the baseline knows the cell at all (any history run or the file measured it). */
export function hasBaseline(view: BaselineView, id: string): boolean {
  return baselineCell(view, id) !== undefined || recent(view).some((entry) => entry.cells[id] !== undefined)
}

/** True when there is no baseline of any cell: the first run on this hardware. */
export function isFirstRun(view: BaselineView): boolean {
  return !view.results && view.history.length === 0
}

export function baselineSample(view: BaselineView, id: string, metric: GatedMetric, stat: GateStat): BaselineSample | undefined {
  const key = metricKey(metric, stat)
  const runs = recent(view)
    .map((entry) => entry.cells[id]?.[key])
    .filter((s) => s !== undefined && isUsable(s.steady))
  const cell = baselineCell(view, id)
  if (runs.length >= 2 || (runs.length === 1 && !cell)) {
    const steady = runs.map((s) => s!.steady)
    return { value: median(steady), source: 'history', steady, rounds: runs.map((s) => (s!.rounds ?? []).filter(isUsable)) }
  }
  if (!cell) return undefined
  const value = readMetric(cell.metrics, metric, stat)
  if (value === undefined) return undefined
  const rounds = cell.rounds.filter((r) => r.steady).map((r) => readMetric(r.metrics, metric, stat))
  return { value, source: 'file', steady: [value], rounds: [rounds.filter(isUsable)] }
}

function recent(view: BaselineView): HistoryEntry[] {
  return view.history.slice(-HISTORY_WINDOW)
}
