/**
 * The one place a cell's verdict is computed: the verdict rules of a run bound to its baseline, each cell
 * judged with its own target's gate and `noise-floor`. A cell measured here (after each measurement, while
 * its server is still up), read back from a results file (a shard's, or `compare`'s CURRENT) and one that
 * `select: changed` skipped all go through `decide`, which returns the judged cell as a new object and leaves
 * the one it was given as it was.
 */
import {
  cellAgreement,
  cellBaseline,
  confirmCell,
  findRenames,
  judgeCell,
  moreRounds,
  skippedVerdict,
  type BaselineView,
  type CellBaseline,
  type Renames,
  type RunCells,
} from '../compare/index.js'
import { baselineCell } from '../compare/baseline.js'
import { serverChanges } from '../compare/server-changes.js'
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
  /** New cells judged against a baseline cell this run did not measure, and those left unpaired (compare/match.ts). */
  readonly renames: Renames
}

/**
 * The rules of a run bound to its baseline. With `run` (the cells the run measures or skips), a new cell may be
 * judged against the baseline cell it renames, and a run that left baseline cells unmeasured has no clean new
 * cells; without it (one cell judged alone) neither applies. Every cell is judged on the baseline runs that
 * measured its workload.
 */
export function cellJudge(view: BaselineView, rulesOf: (target: string) => TargetRules, run?: RunCells): CellJudge {
  const rules = (target: string) => {
    const { gate, noiseFloor } = rulesOf(target)
    return { gate, options: noiseFloor === undefined ? {} : { noiseFloor } }
  }
  const renames: Renames = run ? findRenames(view, run) : { aliases: new Map(), unpaired: [] }
  const baselineOf = (cell: CellResult) => cellBaseline(view, cell, run, renames)
  return {
    renames,
    decide([first, ...again], fresh = false) {
      if (first.status !== 'ok') return first
      const { gate, options } = rules(first.target)
      const base = baselineOf(first)
      if (first.verdict?.skipped) return { ...first, verdict: skippedVerdict(first.id, base.view, gate, options) }
      if (base.verdict) return { ...first, verdict: base.verdict }
      const verdict = withNote(judgeCell(first, base.view, gate, options), base)
      const judged = { ...first, verdict, ...evidence(first, base.view) }
      const decided = again.length
        ? {
            ...judged,
            verdict: withNote(confirmCell(judged, again, base.view, gate, { ...options, fresh }), base),
          }
        : judged
      return withServerChanges(decided, [first, ...again], base)
    },
    moreRounds(cell, maxRounds) {
      const { gate, options } = rules(cell.target)
      const base = baselineOf(cell)
      return base.verdict ? 0 : moreRounds(cell, base.view, gate, { ...options, maxRounds })
    },
  }
}

/** The verdict with the engine counters that changed against the baseline cell's rounds, when any did. */
function withServerChanges(cell: CellResult, measured: readonly CellResult[], base: CellBaseline): CellResult {
  const baseCell = baselineCell(base.view, base.comparedWith ?? cell.id)
  if (!baseCell) return cell
  const changes = serverChanges(
    measured.flatMap((m) => m.rounds),
    baseCell.rounds,
  )
  return changes.length ? { ...cell, verdict: { ...cell.verdict, serverChanges: changes } } : cell
}

/** The verdict with the baseline's note said first, and the cell it was compared with when that is another. */
function withNote(verdict: CellResult['verdict'], base: CellBaseline): CellResult['verdict'] {
  const { note, comparedWith } = base
  const noted =
    !note || verdict.note?.startsWith(note)
      ? verdict
      : { ...verdict, note: verdict.note ? `${note}; ${verdict.note}` : note }
  return comparedWith ? { ...noted, comparedWith } : noted
}

/** What the results file records next to the verdict: the greedy agreement and the environment changes, as new objects. */
function evidence(cell: CellResult, view: BaselineView): Pick<CellResult, 'quality' | 'host'> {
  const agreement = cellAgreement(cell, view)
  const before = baselineCell(view, cell.id)?.host?.fingerprint
  const changes = cell.host && fingerprintChanges(before, cell.host.fingerprint)
  // The baseline's fingerprint goes with the changes: a same-box A/B checks its arms against it (ab-target.ts).
  const host = changes?.length && cell.host ? { ...cell.host, changes, baseline: before } : undefined
  return {
    ...(agreement !== undefined && cell.quality !== undefined && { quality: { ...cell.quality, agreement } }),
    ...(host && { host }),
  }
}

/**
 * Cells read from results files, each judged; what could not be measured keeps its verdict, and so does a cell a
 * same-box A/B decided (a shard's): its paired launches outrank the stored baseline.
 */
export function judgeAll(cells: readonly CellResult[], judge: CellJudge): CellResult[] {
  return cells.map((cell) => (cell.ab?.status === 'ran' ? cell : judge.decide([cell])))
}
