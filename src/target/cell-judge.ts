/**
 * The one place a cell's verdict is computed: the verdict rules of a run bound to its baseline, each cell
 * judged with its own target's gate and `noise-floor`. A cell measured here (after each measurement, while
 * its server is still up), read back from a results file (a shard's, or `compare`'s CURRENT) and one that
 * `select: changed` skipped all go through `decide`, which returns the judged cell as a new object and leaves
 * the one it was given as it was.
 */
import {
  cellAgreement,
  confirmCell,
  judgeCell,
  moreRounds,
  skippedVerdict,
  type BaselineView,
} from '../compare/index.js'
import { baselineCell } from '../compare/baseline.js'
import type { GateConfig } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import { fingerprintChanges } from '../host/index.js'

export interface TargetRules {
  gate: GateConfig
  /** Launch-to-launch spread assumed while the history is short (`noise-floor`); the built-in one when absent. */
  noiseFloor?: number
}

export interface CellJudge {
  /**
   * The cell judged on its measurements: the first alone, or with its re-measurements pooled, metric by metric
   * (`fresh` when each re-measurement came from a new launch). A cell that could not be measured keeps its
   * error; a skipped cell gets the baseline's figures, never a pass or a failure. The judged cell also records
   * what its verdict relied on: the agreement of its greedy outputs with the baseline cell's, and what changed
   * in the environment since the baseline cell was measured.
   */
  decide(measurements: readonly [CellResult, ...CellResult[]], fresh?: boolean): CellResult
  /** Warm rounds to add before deciding (0: decide now), within `maxRounds` rounds in all. */
  moreRounds(cell: CellResult, maxRounds: number): number
}

export function cellJudge(view: BaselineView, rulesOf: (target: string) => TargetRules): CellJudge {
  const rules = (target: string) => {
    const { gate, noiseFloor } = rulesOf(target)
    return { gate, options: noiseFloor === undefined ? {} : { noiseFloor } }
  }
  return {
    decide([first, ...again], fresh = false) {
      if (first.status !== 'ok') return first
      const { gate, options } = rules(first.target)
      if (first.verdict?.skipped) return { ...first, verdict: skippedVerdict(first.id, view, gate, options) }
      const verdict = judgeCell(first, view, gate, options)
      const judged = { ...first, verdict, ...evidence(first, view) }
      return again.length
        ? { ...judged, verdict: confirmCell(judged, again, view, gate, { ...options, fresh }) }
        : judged
    },
    moreRounds(cell, maxRounds) {
      const { gate, options } = rules(cell.target)
      return moreRounds(cell, view, gate, { ...options, maxRounds })
    },
  }
}

/** What the results file records next to the verdict: the greedy agreement and the environment changes, as new objects. */
function evidence(cell: CellResult, view: BaselineView): Pick<CellResult, 'quality' | 'host'> {
  const agreement = cellAgreement(cell, view)
  const changes = cell.host && fingerprintChanges(baselineCell(view, cell.id)?.host?.fingerprint, cell.host.fingerprint)
  return {
    ...(agreement !== undefined && cell.quality !== undefined && { quality: { ...cell.quality, agreement } }),
    ...(changes !== undefined && changes.length > 0 && cell.host !== undefined && { host: { ...cell.host, changes } }),
  }
}

/** Cells read from results files, each judged; what could not be measured keeps its verdict. */
export function judgeAll(cells: readonly CellResult[], judge: CellJudge): CellResult[] {
  return cells.map((cell) => judge.decide([cell]))
}
