/**
 * A run's cells → its results file: judge the cells that were read rather than measured, add
 * the baseline's cells the run left out, and tally the run verdict. The pipeline and the CLI's
 * `compare` both judge results files through here.
 */
import type { CellJudge } from '../target/cell-judge.js'
import { missingCells, runVerdict, type BaselineView, type RunTally } from '../compare/index.js'
import { RESULTS_SCHEMA, type BaselineRef, type CellResult, type ResultsFile, type RunMeta } from '../core/results.js'

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
  /** A maintainer accepted this PR's regressions (`benchmark-accept`). */
  acceptance?: { by?: string }
}

export interface Assembled {
  results: ResultsFile
  tally: RunTally
}

export function assembleResults(input: AssembleInput): Assembled {
  const { judge, missing } = input
  const cells = [...input.cells]
  if (judge) for (const cell of cells) if (cell.status === 'ok') cell.verdict = judge.judge(cell)
  if (missing) cells.push(...missingCells(missing.view, new Set(cells.map((c) => c.id)), missing.selected))
  const tally = runVerdict(cells, input.acceptance)
  return { results: { schema: RESULTS_SCHEMA, run: input.run, cells, summary: { ...tally, baseline: input.baseline } }, tally }
}
