/**
 * A run's judged cells → its results file: add the baseline's cells the run left out and tally the
 * run verdict. The pipeline and the CLI's `compare` both assemble results files through here; the
 * cells arrive judged (compare/cell-judge.ts decides every one).
 */
import { missingCells, runVerdict, type BaselineView, type Renames, type RunTally } from '../compare/index.js'
import { RESULTS_SCHEMA, type BaselineRef, type CellResult, type ResultsFile, type RunMeta } from '../core/results.js'

export interface AssembleInput {
  run: RunMeta
  /** The run's cells, each with its verdict. */
  cells: readonly CellResult[]
  /**
   * Reports the baseline's cells this run did not measure, among those `selected`, as missing; `renames` (the
   * judge's) says which of them a new cell was compared with.
   */
  missing?: { view: BaselineView; selected: (id: string) => boolean; renames?: Renames }
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
  const { missing } = input
  const cells = [...input.cells]
  if (missing) {
    const renamedTo = new Map([...(missing.renames?.aliases ?? [])].map(([to, from]) => [from, to]))
    cells.push(...missingCells(missing.view, new Set(cells.map((c) => c.id)), missing.selected, renamedTo))
  }
  const tally = runVerdict(cells, input.acceptance)
  return {
    results: { schema: RESULTS_SCHEMA, run: input.run, cells, summary: { ...tally, baseline: input.baseline } },
    tally,
  }
}
