/**
 * The verdict rules of a run bound to its baseline: each cell is judged with its own target's gate and
 * `noise-floor`, whether it was measured here (with adaptive rounds and confirmation) or read back from a
 * results file.
 */
import { cellAgreement, confirmCell, judgeCell, moreRounds, skippedVerdict, type BaselineView } from '../compare/index.js'
import { baselineCell } from '../compare/baseline.js'
import type { GateConfig } from '../core/plan.js'
import { fingerprintChanges } from '../host/index.js'
import type { CellResult, CellVerdict } from '../core/results.js'

export interface TargetRules {
  gate: GateConfig
  /** Launch-to-launch spread assumed while the history is short (`noise-floor`); the built-in one when absent. */
  noiseFloor?: number
}

export interface CellJudge {
  judge(cell: CellResult): CellVerdict
  /** The verdict of a cell `select: changed` did not run: its baseline figures, never a pass or a failure. */
  skipped(id: string, target: string): CellVerdict
  /** Warm rounds to add before deciding (0: decide now), within `maxRounds` rounds in all. */
  moreRounds(cell: CellResult, maxRounds: number): number
  /** The verdict over `first` and its re-measurements pooled; `fresh` when each came from a new launch. */
  confirm(first: CellResult, again: readonly CellResult[], fresh: boolean): CellVerdict
}

export function cellJudge(view: BaselineView, rulesOf: (target: string) => TargetRules): CellJudge {
  const options = (target: string) => {
    const { gate, noiseFloor } = rulesOf(target)
    return { gate, options: noiseFloor === undefined ? {} : { noiseFloor } }
  }
  return {
    judge(cell) {
      const r = options(cell.target)
      // Read back from a shard's file: still skipped, with this run's baseline figures.
      if (cell.verdict?.skipped) return skippedVerdict(cell.id, view, r.gate, r.options)
      // The results file records the agreement the quality verdict judged.
      const agreement = cellAgreement(cell, view)
      if (agreement && cell.quality) cell.quality.agreement = agreement
      // So does what changed in the environment since the baseline cell was measured.
      const changes = cell.host && fingerprintChanges(baselineCell(view, cell.id)?.host?.fingerprint, cell.host.fingerprint)
      if (changes?.length) cell.host!.changes = changes
      return judgeCell(cell, view, r.gate, r.options)
    },
    skipped(id, target) {
      const r = options(target)
      return skippedVerdict(id, view, r.gate, r.options)
    },
    moreRounds(cell, maxRounds) {
      const r = options(cell.target)
      return moreRounds(cell, view, r.gate, { ...r.options, maxRounds })
    },
    confirm(first, again, fresh) {
      const r = options(first.target)
      return confirmCell(first, again, view, r.gate, { ...r.options, fresh })
    },
  }
}
