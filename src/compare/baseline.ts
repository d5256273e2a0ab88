/** What the baseline holds for one cell: the history's default-branch runs, else the baseline file's cell. */
import type { CellResult, HistoryEntry, ResultsFile } from '../core/results.js'
import { metricKey, readCellMetric, readMetric, type GateStat, type GatedMetric } from '../core/metrics.js'
import { isUsable } from '../core/stats.js'

export interface BaselineView {
  /** The baseline results file (single reference), if any. */
  results?: ResultsFile
  /** Recent default-branch runs, newest last. */
  history: HistoryEntry[]
}

/** Runs the level-shift scan and the run-to-run spread look at; the reference itself uses at most REFERENCE_RUNS. */
const HISTORY_WINDOW = 20

/** One baseline run of a metric: its steady value and the per-round samples behind it. */
export interface BaselineRun {
  steady: number
  rounds: number[]
  /** Commit of the run. */
  sha: string
}

export interface BaselineRuns {
  source: 'history' | 'file'
  /** Newest last. */
  runs: BaselineRun[]
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

/**
 * The history's runs of a metric when it has two or more (or one and no file), else the baseline file's cell as
 * one run with its steady rounds; undefined when neither has the value.
 */
export function baselineRuns(
  view: BaselineView,
  id: string,
  metric: GatedMetric,
  stat: GateStat,
): BaselineRuns | undefined {
  const runs = historyRuns(recent(view), id, metric, stat)
  const cell = baselineCell(view, id)
  if (runs.length >= 2 || (runs.length === 1 && !cell)) return { source: 'history', runs }
  const steady = cell && readCellMetric(cell, metric, stat)
  if (!cell || steady === undefined) return undefined
  return {
    source: 'file',
    runs: [{ steady, rounds: steadyRounds(cell, metric, stat), sha: view.results?.run.sha ?? '' }],
  }
}

/** The runs of `entries` (oldest first) that measured the cell's metric: steady value, usable rounds, commit. */
export function historyRuns(
  entries: readonly HistoryEntry[],
  id: string,
  metric: GatedMetric,
  stat: GateStat,
): BaselineRun[] {
  const key = metricKey(metric, stat)
  return entries.flatMap((entry) => {
    const samples = entry.cells[id]?.[key]
    if (!samples || !isUsable(samples.steady)) return []
    return [{ steady: samples.steady, rounds: (samples.rounds ?? []).filter(isUsable), sha: entry.sha }]
  })
}

/** A cell's steady rounds that had a successful request, as values of one metric (none for a launch figure). */
export function steadyRounds(cell: CellResult, metric: GatedMetric, stat: GateStat): number[] {
  return cell.rounds
    .filter((r) => r.steady && r.errors < r.requests)
    .map((r) => readMetric(r.metrics, metric, stat))
    .filter(isUsable)
}

function recent(view: BaselineView): HistoryEntry[] {
  return view.history.slice(-HISTORY_WINDOW)
}
