/** Verdicts and the noise model (SPEC §8): pure functions over plain data. */
export { HISTORY_WINDOW, baselineSample, type BaselineSample, type BaselineView } from './baseline.js'
export { confirmVerdict, needsConfirmation } from './confirm.js'
export { FIRST_RUN_NOTE, NEW_CELL_NOTE, NOT_MEASURED_NOTE, judgeCell } from './judge.js'
export { judgeMetric, type MetricInput } from './metric.js'
export { NOISE_Z, noiseBand } from './noise.js'
export { missingCells, runVerdict, type RunTally } from './run.js'
