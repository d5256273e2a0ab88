/**
 * Verdicts and the noise model, as pure functions over plain data. The reference is the level main is at now
 * (reference.ts: level shifts, the median of the runs since the last one); a gated metric regresses when it is
 * worse than the reference by more than the limit and by more than the noise of both sides explains (noise.ts,
 * metric.ts), or by more than twice the limit whatever the noise (rules.ts). A cell kept inconclusive by noise
 * alone measures more warm rounds (more-rounds.ts); a cell that looks regressed is re-measured and judged on both
 * measurements pooled, metric by metric (confirm.ts). A same-box A/B against the base commit (ab.ts, ab-cell.ts)
 * judges a cell from launches of both arms, and its verdict replaces the stored one where it may (ab-final.ts).
 *
 * Every verdict of a cell is decided by `CellJudge.decide` (cell-judge.ts), the one entry the action and the CLI
 * call; `missingCells` and `runVerdict` judge the run, and `runFailure` says whether it fails the step.
 */
export { abFinal, type AbFinalInput } from './ab-final.js'
export { abUndecided, abWanted, type AbEvidence, type AbRun } from './ab-verdict.js'
export { cellJudge, rulesByTarget, targetRules, type CellJudge, type Evidence, type TargetRules } from './cell-judge.js'
export { fingerprintChanges, unreproducedChanges } from './fingerprint-changes.js'
export { pastTwiceTheLimit, runFailure, type FailOn } from './rules.js'
export { AB_Z, MAX_MORE_LAUNCHES, abMetric, abOrder, type AbMetricInput, type AbValue, type Arm } from './ab.js'
export { abCellVerdict, launchSe, type AbLaunch, type AbOptions } from './ab-cell.js'
export { abMoreRounds, abWarmRounds } from './ab-rounds.js'
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
  skippedFigures,
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
export { serverChanges } from './server-changes.js'
export { disturbedRounds, withDisturbed } from './disturbed.js'
export {
  MAX_STEPS,
  bisectCommits,
  nextProbe,
  type BisectAnswer,
  type BisectRule,
  type Comparison,
  type NextProbe,
} from './bisect-rule.js'
export { abLimitPlans, abSpreadWarnings, formatAbPlan, type AbLimitPlan } from './ab-plan.js'
