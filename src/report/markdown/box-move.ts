/**
 * A box-wide move: most cells of one box moved together, by about the same amount, on a gated metric. Code rarely
 * slows every engine and scenario alike; a box does (a driver, clocks, a noisy neighbour, another machine behind the
 * same hardware key), so the headline says so once, above the per-cell verdicts, which stand as the gate decided
 * them. The same-box A/B (`ab:`, docs/same-box.md) measures base and PR on one box and decides which it was.
 *
 * The rule, per gated metric, over the cells of the run's box compared with a stored baseline on it (a cell a
 * same-box A/B decided is already on one box, and one without a finite change or a limit is left out), n of them:
 * - at least MIN_CELLS of them (two cells moving alike is a coincidence as often as a pattern);
 * - **together**: the largest set whose changes lie within half the limit of each other (max − min ≤ L/2, L the
 *   strictest limit among the compared cells) holds at least two thirds of the n;
 * - **moved**: that set's median change is past L, for the worse or the better: a shared move within the limit
 *   fails nothing and needs no explaining.
 */
import { formatDelta, plural } from '../../core/format.js'
import { GATED_METRICS, metricLabel, type GatedMetric } from '../../core/metrics.js'
import type { CellResult, MetricVerdict, ResultsFile } from '../../core/results.js'
import { clip, code } from '../escape.js'

export const MIN_CELLS = 3
/** The share of the compared cells that must have moved together. */
export const MOST = 2 / 3
/** How close their changes must be, as a share of the limit. */
export const SIMILAR = 1 / 2

export interface MetricMove {
  metric: GatedMetric
  label: string
  /** Cells in the set that moved together, and cells compared on the metric. */
  moved: number
  compared: number
  /** The set's changes, least and most (by size), signed as verdicts are. */
  least: number
  most: number
}

/** The verdicts of `metric` a box-wide move is judged on (see the header). */
function compared(cells: readonly CellResult[], metric: GatedMetric): MetricVerdict[] {
  return cells.flatMap((c) => {
    const m = c.verdict.metrics[metric]
    if (c.status === 'error' || c.verdict.skipped || c.ab?.status === 'ran' || !m) return []
    return typeof m.delta === 'number' && Number.isFinite(m.delta) && m.limit !== undefined && m.limit > 0 ? [m] : []
  })
}

/** The metric's box-wide move, when its compared cells show one. */
export function metricMove(cells: readonly CellResult[], metric: GatedMetric): MetricMove | undefined {
  const verdicts = compared(cells, metric)
  if (verdicts.length < MIN_CELLS) return undefined
  const limit = Math.min(...verdicts.map((m) => m.limit!))
  const deltas = verdicts.map((m) => m.delta!).sort((a, b) => a - b)
  // The widest window of sorted changes spanning at most SIMILAR × limit.
  let best = { from: 0, to: 0 }
  for (let from = 0, to = 0; to < deltas.length; to++) {
    while (deltas[to] - deltas[from] > SIMILAR * limit) from++
    if (to - from > best.to - best.from) best = { from, to }
  }
  const set = deltas.slice(best.from, best.to + 1)
  const median = set[Math.floor(set.length / 2)]
  if (set.length < MOST * deltas.length || Math.abs(median) <= limit) return undefined
  const bySize = [...set].sort((a, b) => Math.abs(a) - Math.abs(b))
  const label = metricLabel(metric, verdicts[0].stat)
  return { metric, label, moved: set.length, compared: deltas.length, least: bySize[0], most: bySize.at(-1)! }
}

/** Every gated metric's box-wide move in the run. */
export function boxMoves(cells: readonly CellResult[]): MetricMove[] {
  return GATED_METRICS.flatMap((metric) => metricMove(cells, metric) ?? [])
}

/**
 * The headline's line: `📦 12 of 14 cells decode tok/s −7.0% … −8.1% on `box`: the box, not the code? …`, every
 * metric that moved box-wide in one line; undefined when none did.
 */
export function boxMoveNote(results: ResultsFile): string | undefined {
  const moves = boxMoves(results.cells)
  if (!moves.length) return undefined
  const said = moves.map(
    (m) => `${m.moved} of ${plural(m.compared, 'cell')} ${m.label} ${formatDelta(m.least)} … ${formatDelta(m.most)}`,
  )
  return (
    `📦 ${said.join(', ')} on ${code(clip(results.run.hardware, 80))}: the box, not the code? ` +
    'The same-box A/B decides (`ab:` in the matrix file, docs/same-box.md): it measures base and PR on this box.'
  )
}
