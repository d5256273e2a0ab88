// CONTRACT STUB — the compare helper replaces the bodies; keep the exported names and shapes.
import type { GateConfig } from '../config/plan.js'
import type { CellResult, CellVerdict, CellVerdictStatus, HistoryEntry, ResultsFile, RunVerdict } from '../results.js'

export interface BaselineView {
  /** The baseline results file (single reference), if any. */
  results?: ResultsFile
  /** Recent default-branch runs, newest last. */
  history: HistoryEntry[]
}

/** Judge one measured cell against the baseline (pure). */
export function judgeCell(_cell: CellResult, _baseline: BaselineView, _gate: GateConfig): CellVerdict {
  throw new Error('not implemented')
}

/** Cells of the baseline that this run did not measure (and were not filtered out by only/shard). */
export function missingCells(_baseline: BaselineView, _ran: Set<string>, _selected: (id: string) => boolean): CellResult[] {
  throw new Error('not implemented')
}

export function runVerdict(_cells: CellResult[]): { verdict: RunVerdict; regressions: number; counts: Partial<Record<CellVerdictStatus, number>> } {
  throw new Error('not implemented')
}
