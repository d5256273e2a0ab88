/**
 * Verdicts and the noise model, as pure functions over plain data. A gated metric regresses only
 * when it is worse than the baseline by more than `max-regression`, by more than `min-delta` when
 * set, and by more than the noise of both sides explains (noise.ts); a cell that looks regressed
 * is re-measured, and fails only when the re-measurement agrees (confirm.ts).
 */
export { HISTORY_WINDOW, baselineSample, type BaselineSample, type BaselineView } from './baseline.js'
export { confirmVerdict, needsConfirmation } from './confirm.js'
export { FIRST_RUN_NOTE, NEW_CELL_NOTE, NOT_MEASURED_NOTE, judgeCell } from './judge.js'
export { judgeMetric, type MetricInput } from './metric.js'
export { NOISE_Z, noiseBand } from './noise.js'
export { missingCells, runVerdict, type RunTally } from './run.js'
