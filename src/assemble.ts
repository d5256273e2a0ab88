/**
 * A run's cells → its results file: judge the cells that were read rather than measured, add
 * the baseline's cells the run left out, and tally the run verdict. The pipeline and the CLI's
 * `compare` both judge results files through here.
 */
import { cellAgreement, judgeCell, missingCells, runVerdict, type BaselineView, type RunTally } from './compare/index.js'
import type { GateConfig } from './core/plan.js'
import { RESULTS_SCHEMA, type BaselineRef, type CellResult, type CellVerdict, type ResultsFile, type RunMeta } from './core/results.js'

export type CellJudge = (cell: CellResult) => CellVerdict

/** Judges a cell against the baseline with its target's gate. */
export function cellJudge(view: BaselineView, gateOf: (target: string) => GateConfig): CellJudge {
  return (cell) => {
    // The results file records the agreement the quality verdict judged.
    const agreement = cellAgreement(cell, view)
    if (agreement && cell.quality) cell.quality.agreement = agreement
    return judgeCell(cell, view, gateOf(cell.target))
  }
}

export interface AssembleInput {
  run: RunMeta
  cells: CellResult[]
  /**
   * Judges every `ok` cell. Only for cells read from results files: a measured cell was judged,
   * and a regression confirmed, while its server was still up.
   */
  judge?: CellJudge
  /** Reports the baseline's cells this run did not measure, among those `selected`, as missing. */
  missing?: { view: BaselineView; selected: (id: string) => boolean }
  /** The baseline the cells were judged against. */
  baseline?: BaselineRef
}

export interface Assembled {
  results: ResultsFile
  tally: RunTally
}

export function assembleResults(input: AssembleInput): Assembled {
  const { judge, missing } = input
  const cells = [...input.cells]
  if (judge) for (const cell of cells) if (cell.status === 'ok') cell.verdict = judge(cell)
  if (missing) cells.push(...missingCells(missing.view, new Set(cells.map((c) => c.id)), missing.selected))
  const tally = runVerdict(cells)
  return { results: { schema: RESULTS_SCHEMA, run: input.run, cells, summary: { ...tally, baseline: input.baseline } }, tally }
}
