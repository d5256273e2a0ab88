/**
 * Verdicts and the noise model, as pure functions over plain data. The reference is the level main is at now
 * (reference.ts: level shifts, the median of the runs since the last one); a gated metric regresses when it is
 * worse than the reference by more than the limit and by more than the noise of both sides explains (noise.ts,
 * metric.ts), or by more than twice the limit whatever the noise. A cell kept inconclusive by noise alone measures
 * more warm rounds (rounds.ts); a cell that looks regressed is re-measured and judged on both measurements pooled,
 * metric by metric (confirm.ts).
 *
 * The pipeline calls, per measured cell: `judgeCell`, then `moreRounds` between rounds while it asks for some
 * (re-judging after), then `confirmCell` while `needsConfirmation` holds (up to `confirm` times); finally
 * `missingCells` and `runVerdict` over the run. A same-box A/B against the base commit (ab.ts) judges a cell from
 * launches of both arms instead: `abOrder` says which arm each launch runs, `abCellVerdict` (ab-cell.ts) judges
 * them.
 */
export { abFinal, type AbFinalInput } from './ab-final.js'
export {
  AB_MAX_LAUNCHES,
  AB_Z,
  MAX_MORE_LAUNCHES,
  abMetric,
  abOrder,
  type AbMetricInput,
  type AbValue,
  type Arm,
} from './ab.js'
export { abCellVerdict, abMoreRounds, launchSe, type AbLaunch, type AbOptions } from './ab-cell.js'
export { isFirstRun, type BaselineView } from './baseline.js'
export { confirmCell, confirmVerdict, needsConfirmation, type ConfirmOptions } from './confirm.js'
export {
  FIRST_RUN_NOTE,
  NEW_CELL_NOTE,
  NOT_MEASURED_NOTE,
  SKIPPED_NOTE,
  cellStatus,
  judgeCell,
  skippedVerdict,
  type JudgeOptions,
} from './judge.js'
export { NOISE_FLOOR, NOISE_Z, noiseBand, noiseModel, roundsFor, type NoiseModel } from './noise.js'
export { REFERENCE_RUNS, levelShifts, referenceFor, relativeLimit } from './reference.js'
export { historyShifts, referenceOptions, type HistoryShifts, type ShiftRules } from './history-shifts.js'
export { moreRounds, type RoundsOptions } from './more-rounds.js'
export { guardedWithin, qn, runSpread } from './spread.js'
export { missingCells, runVerdict, type RunTally } from './run.js'
export { cellAgreement, judgeQuality } from './cell-quality.js'
export {
  cellBaseline,
  findRenames,
  sameWorkload,
  type CellBaseline,
  type CellIdentity,
  type Renames,
  type RunCells,
} from './match.js'
export { attribution } from './spec-split.js'
