/**
 * Adaptive rounds: when noise alone keeps a cell inconclusive, measure more warm rounds (up to `max-rounds`)
 * before deciding. Only the round-to-round part of the band shrinks with rounds (as 1/√k, noise.ts), so more
 * rounds are worth it only when that part is what keeps the band too wide and the rounds it takes fit in what
 * `max-rounds` leaves.
 */
import type { GateConfig } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import type { BaselineView } from './baseline.js'
import { judgeCell, type JudgeOptions } from './judge.js'

export interface RoundsOptions extends JudgeOptions {
  /** Most rounds a cell may measure, discarded ones included (`max-rounds`). */
  maxRounds: number
}

/**
 * How many more rounds to measure before deciding the cell; 0 to decide now. `cell` is the cell so far: every
 * round measured, its steady state recomputed over them. The pipeline measures the rounds (one at a time is
 * fine: the band is re-estimated on every call), then asks again.
 */
export function moreRounds(cell: CellResult, baseline: BaselineView, gate: GateConfig, options: RoundsOptions): number {
  const left = options.maxRounds - cell.rounds.length
  if (left <= 0 || cell.status !== 'ok') return 0
  const verdict = judgeCell(cell, baseline, gate, options)
  // A regression goes to confirmation; a flagged or unmeasured metric is not undecided for noise.
  if (verdict.status !== 'inconclusive' || verdict.undecided?.length) return 0
  const wanted = Object.values(verdict.metrics).flatMap((m) =>
    m.status === 'inconclusive' && m.moreRounds !== undefined ? [m.moreRounds] : [],
  )
  const fewest = Math.min(...wanted)
  return fewest <= left ? fewest : 0
}
