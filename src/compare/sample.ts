/**
 * The current side of a comparison: one measurement of a cell, or several pooled into one sample (a first
 * measurement and its confirmation re-measurements). Pooled, the steady value is the mean over every steady
 * round of every measurement — each measurement's steady value weighted by its rounds — and a share (failed
 * requests, goodput) is weighted by the requests sent. A launch figure (startup) has no rounds: each measurement counts once,
 * and measurements of one launch carry the same value, so only a fresh launch moves the pooled one.
 */
import { isRelative, readCellMetric, type GateStat, type GatedMetric } from '../core/metrics.js'
import type { CellResult } from '../core/results.js'
import { steadyRounds } from './baseline.js'

export interface Measured {
  /** Measurements of one cell, the first one first; all measured (`status: 'ok'`, metrics present). */
  cells: readonly CellResult[]
  /** Engine launches the measurements come from (1 unless a confirmation re-launched it). */
  launches: number
  /** Every flag any measurement raised, once each. */
  flags: string[]
}

export function measured(cells: readonly CellResult[], launches = 1): Measured {
  return { cells, launches, flags: [...new Set(cells.flatMap((c) => c.flags))] }
}

/**
 * Steady rounds as values of the metric, grouped by launch: measurements of one launch share its offset, so their
 * rounds are one sample (a slow first measurement and a quick re-measurement show as spread); measurements of
 * separate launches each spread about their own mean.
 */
export function currentRounds(sample: Measured, metric: GatedMetric, stat: GateStat): number[][] {
  const runs = sample.cells.map((c) => steadyRounds(c, metric, stat))
  return sample.launches === 1 ? [runs.flat()] : runs
}

/** The steady value judged; undefined when a measurement lacks it. */
export function currentValue(sample: Measured, metric: GatedMetric, stat: GateStat): number | undefined {
  let sum = 0
  let weights = 0
  for (const cell of sample.cells) {
    const value = readCellMetric(cell, metric, stat)
    if (value === undefined) return undefined
    const weight = isRelative(metric) ? Math.max(steadyRounds(cell, metric, stat).length, 1) : sentRequests(cell)
    sum += value * weight
    weights += weight
  }
  return weights > 0 ? sum / weights : sample.cells[0] && readCellMetric(sample.cells[0], metric, stat)
}

function sentRequests(cell: CellResult): number {
  return cell.rounds.filter((r) => r.steady).reduce((n, r) => n + r.requests, 0)
}
