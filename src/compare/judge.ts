/**
 * The verdict on one measured cell against the baseline (pure). The cell's status is its worst metric verdict,
 * and besides the metrics:
 *
 * - a flag (bench/rounds/flags.ts) means the cell did not measure the workload the baseline did, so its speed figures
 *   are not compared (regression and improvement become inconclusive); the failed-requests ceiling still is;
 * - an achieved-length miss (`lengths-missed:`) the baseline's cell did not have fails the cell: the engine
 *   stopped short of the request where the baseline did not; a flag of a kind the baseline had too leaves the
 *   cell inconclusive (a stored history never holds a flagged run, so only a baseline file can have flags);
 * - a gated metric that should have been measured and was not leaves the cell inconclusive;
 * - goodput at 0 % on both sides (an SLO neither meets) leaves it inconclusive, never a pass (slo-reach.ts).
 */
import {
  GATED_METRICS,
  HEADLINE_METRICS,
  isDrop,
  isRelative,
  metricInfo,
  metricLabel,
  type ComparedMetric,
  type GateStat,
  type GatedMetric,
} from '../core/metrics.js'
import type { GateConfig } from '../core/plan.js'
import { newVerdict, type CellResult, type CellVerdict, type MetricVerdict } from '../core/results.js'
import { formatDelta } from '../core/format.js'
import { baselineCell, hasBaseline, isFirstRun, type BaselineView } from './baseline.js'
import { judgeCeiling, judgeMetric } from './metric.js'
import { judgeFromZeroShare } from './slo-reach.js'
import { NOISE_FLOOR, noiseModel } from './noise.js'
import { referenceFor, type Reference, type ReferenceOptions } from './reference.js'
import { referenceOptions } from './history-shifts.js'
import { currentRounds, currentValue, measured, type Measured } from './sample.js'
import { judgeQuality } from './cell-quality.js'
import { factorConfig, splitDecode } from './spec-split.js'
import { pairedWithin, storedAcceptance } from './paired-rounds.js'
import { demoteSpeeds, flagNote } from './rules.js'

export const FIRST_RUN_NOTE = 'first run: no baseline yet, passes'
export const NEW_CELL_NOTE = 'no baseline for this cell yet'
export const NOT_MEASURED_NOTE = 'in the baseline, not measured in this run'
export const SKIPPED_NOTE = "skipped (unchanged): none of its paths changed in this PR; the figures are the baseline's"

export interface JudgeOptions {
  /** Launch-to-launch spread assumed while the history is short, as a fraction (`noise-floor`; default 1.5 %). */
  noiseFloor?: number
}

const SEVERITY: Record<MetricVerdict['status'], number> = { pass: 0, improvement: 1, inconclusive: 2, regression: 3 }

/** What one gated metric of a cell came to: a verdict, or a note on why it could not be compared. */
interface Judged {
  verdict?: MetricVerdict
  note?: string
  /** The metric should have been comparable and was not. */
  unknown?: boolean
  reference?: Reference
}

/** One measurement of a cell against the baseline: the entry the pipeline calls after measuring a cell. */
export function judgeCell(
  cell: CellResult,
  baseline: BaselineView,
  gate: GateConfig,
  options: JudgeOptions = {},
): CellVerdict {
  if (cell.status === 'error')
    return { status: 'error', metrics: {}, note: cell.error ?? 'the cell could not be measured' }
  if (!cell.metrics) return { status: 'missing', metrics: {}, note: NOT_MEASURED_NOTE }
  return judgeSample(measured([cell]), baseline, gate, options)
}

/** Measurements of one cell, all measured, judged as one pooled sample (see sample.ts). */
export function judgeSample(
  sample: Measured,
  baseline: BaselineView,
  gate: GateConfig,
  options: JudgeOptions = {},
): CellVerdict {
  const id = sample.cells[0].id
  const flags = flagState(sample.flags, baselineCell(baseline, id)?.flags ?? [])
  if (!hasBaseline(baseline, id)) {
    const note = isFirstRun(baseline) ? FIRST_RUN_NOTE : NEW_CELL_NOTE
    return sample.flags.length
      ? { status: 'inconclusive', metrics: {}, note: `${flagNote(sample.flags)}; ${note}`, undecided: flags.undecided }
      : newVerdict(note)
  }

  const { metrics, notes, unknown, source } = judgeMetrics(sample, baseline, gate, options.noiseFloor ?? NOISE_FLOOR)
  // A flagged workload (short outputs, missing usage, …) is not the workload the baseline measured.
  if (sample.flags.length) demoteSpeeds(metrics)

  const undecided = [...flags.undecided, ...unknown]
  // Output quality fails the cell like a new length miss: it is not a speed figure, so flags do not demote it.
  const quality = judgeQuality(sample.cells, baseline, gate.quality)
  const failures = [...flags.failures, ...quality.reasons]
  notes.push(...quality.warnings)
  const gated = GATED_METRICS.some((m) => gate[m] && measures(sample.cells[0], m))
  let status = cellStatus(metrics, failures, undecided)
  if (!Object.keys(metrics).length && status === 'pass' && gated) status = 'new'
  if (!gated) notes.push('no gated metrics')
  const rebased = Object.values(metrics).flatMap((v) => (v.rebased ? [rebasedNote(v)] : []))
  const note = [
    sample.flags.length ? flagNote(sample.flags) : undefined,
    source,
    ...rebased,
    ...failures,
    ...notes,
    ...unknown,
  ]
    .filter(Boolean)
    .join('; ')
  const verdict: CellVerdict = {
    status,
    metrics,
    note: note || undefined,
    reference: referenceValues(id, baseline, gate, options),
  }
  if (failures.length) verdict.failures = failures
  if (undecided.length) verdict.undecided = undecided
  return verdict
}

/** Every gated metric of the sample against its reference, with decode split into its spec-decode factors. */
function judgeMetrics(sample: Measured, baseline: BaselineView, gate: GateConfig, floor: number) {
  const metrics: CellVerdict['metrics'] = {}
  const notes: string[] = []
  const unknown: string[] = []
  let source: string | undefined
  for (const metric of GATED_METRICS) {
    const judged = judgeGated(sample, baseline, gate, metric, floor)
    if (!judged) continue
    if (judged.verdict) metrics[metric] = judged.verdict
    if (judged.note) (judged.unknown ? unknown : notes).push(judged.note)
    if (judged.reference) source ??= referenceNote(judged.reference)
  }
  // Speculative decoding: decode = acceptance length ÷ step time, each factor judged with decode's limit.
  if (metrics.decode && gate.decode) {
    const config = factorConfig(gate.decode)
    metrics.decode = splitDecode(
      metrics.decode,
      (f) =>
        (f === 'accept-length'
          ? storedAcceptance(sample.cells, baselineCell(baseline, sample.cells[0].id), config)
          : undefined) ?? judgeRelative(sample, baseline, f, 'mean', { config, noiseFloor: floor }).verdict,
    )
  }
  return { metrics, notes, unknown, source }
}

/** The cell's status from its metric verdicts and what fails or leaves it undecided outside them. */
export function cellStatus(
  metrics: CellVerdict['metrics'],
  failures: readonly string[] = [],
  undecided: readonly string[] = [],
): CellVerdict['status'] {
  const worst = Object.values(metrics).reduce<MetricVerdict['status']>(
    (w, v) => (SEVERITY[v.status] > SEVERITY[w] ? v.status : w),
    'pass',
  )
  if (failures.length) return 'regression'
  return undecided.length && worst !== 'regression' ? 'inconclusive' : worst
}

/** One gated metric of a cell against its reference; undefined when the gate does not use the metric. */
function judgeGated(
  sample: Measured,
  baseline: BaselineView,
  gate: GateConfig,
  metric: GatedMetric,
  noiseFloor: number,
): Judged | undefined {
  const stat = gatedStat(gate, metric)
  if (stat === undefined || !measures(sample.cells[0], metric)) return undefined
  // The same options the pages' level shifts are found under (history-shifts.ts): one reference per metric.
  const options = referenceOptions(metric, { gate, noiseFloor })
  if (isRelative(metric) || isDrop(metric))
    return judgeRelative(sample, baseline, metric, stat, { ...options, config: options.config! })
  const label = metricLabel(metric, stat)
  const reference = referenceFor(baseline, sample.cells[0].id, metric, stat, options)
  const current = currentValue(sample, metric, stat)
  if (!reference) return { note: `${label}: no baseline value` }
  if (current === undefined) return { note: `${label}: not measured, cannot compare`, unknown: true }
  return { verdict: judgeCeiling({ metric, config: gate[metric]!, current, baseline: reference.value }), reference }
}

/** A relative metric of a cell against its reference under `config`, with the noise of its own rounds and history. */
function judgeRelative(
  sample: Measured,
  baseline: BaselineView,
  metric: ComparedMetric,
  stat: GateStat,
  options: Required<ReferenceOptions>,
): Judged {
  const { config, noiseFloor } = options
  const label = metricLabel(metric, stat)
  const reference = referenceFor(baseline, sample.cells[0].id, metric, stat, options)
  const current = currentValue(sample, metric, stat)
  if (!reference) return { note: `${label}: no baseline value` }
  if (current === undefined) return { note: `${label}: not measured, cannot compare`, unknown: true }
  if (isDrop(metric) && !(reference.value > 0)) {
    const side = { slo: sample.cells[0].workload?.slo, cells: sample.cells, other: 'at the baseline' }
    return { verdict: judgeFromZeroShare(metric, config, current, side), reference }
  }
  if (!(reference.value > 0)) return { note: `${label}: baseline is not positive, cannot compare`, unknown: true }
  const noise = noiseModel({
    current: currentRounds(sample, metric, stat),
    launches: sample.launches,
    steady: reference.steady,
    rounds: reference.history,
    breaks: reference.breaks,
    value: reference.value,
    runs: reference.runs,
    runRounds: reference.rounds,
    noiseFloor,
    perLaunch: metricInfo(metric).launch,
    paired: isRelative(metric)
      ? pairedWithin(sample.cells, baselineCell(baseline, sample.cells[0].id), metric, stat)
      : undefined,
  })
  return { verdict: judgeMetric({ metric, config, current, reference, noise }), reference }
}

/** False for a metric only some workloads measure (goodput needs an `slo`) on a cell whose workload has none. */
export function measures(cell: Pick<CellResult, 'workload'>, metric: GatedMetric): boolean {
  const key = metricInfo(metric).onlyWith
  return key === undefined || cell.workload?.[key] !== undefined
}

/** The statistic the gate compares for a metric; undefined when the metric is not gated. */
export function gatedStat(gate: GateConfig, metric: GatedMetric): GateStat | undefined {
  if (!isRelative(metric)) return gate[metric] ? 'mean' : undefined
  return gate[metric]?.stat
}

/** Flags of a kind the baseline's cell did not raise: new length misses fail the cell, every other flag leaves it undecided. */
function flagState(flags: readonly string[], known: readonly string[]): { failures: string[]; undecided: string[] } {
  const kinds = new Set(known.map(flagKind))
  const failures: string[] = []
  const undecided: string[] = []
  for (const flag of flags) {
    if (flag.startsWith('lengths-missed:') && !kinds.has(flagKind(flag)))
      failures.push(`${flag}: achieved lengths missed the request, the baseline's did not`)
    else undecided.push(kinds.has(flagKind(flag)) ? `${flag} (the baseline has it too)` : flag)
  }
  return { failures, undecided }
}

/** `lengths-missed: output`, `usage-missing:`, `errors:` — a flag without its figures. */
function flagKind(flag: string): string {
  return flag.replace(/\s*\d.*$/, '')
}

function referenceNote(reference: Reference): string {
  if (reference.source === 'file') return 'baseline: baseline file'
  return reference.runs === 1 ? 'baseline: one history run' : `baseline: median of ${reference.runs} runs`
}

function rebasedNote(v: MetricVerdict): string {
  const { sha, change, runs } = v.rebased!
  return `${metricLabel(v.metric, v.stat)}: main changed ${formatDelta(change)} at ${sha.slice(0, 7)}; comparing with the ${runs} runs since`
}

/**
 * The verdict of a cell `select: changed` left out: not measured, never a pass or a failure; with the baseline's
 * figures to show when the run compares (`skippedFigures`).
 */
export function skippedVerdict(reference?: CellVerdict['reference']): CellVerdict {
  return { status: 'missing', metrics: {}, note: SKIPPED_NOTE, skipped: 'unchanged', ...(reference && { reference }) }
}

/** A skipped cell's verdict with the baseline's figures for it. */
export function skippedFigures(
  id: string,
  baseline: BaselineView,
  gate: GateConfig,
  options: JudgeOptions = {},
): CellVerdict {
  return skippedVerdict(referenceValues(id, baseline, gate, options))
}

/** Reference values of the report's headline figures, in the stat the gate compares (mean when not gated). */
function referenceValues(
  id: string,
  baseline: BaselineView,
  gate: GateConfig,
  options: JudgeOptions,
): CellVerdict['reference'] {
  const values: CellVerdict['reference'] = {}
  for (const metric of HEADLINE_METRICS) {
    const stat = gatedStat(gate, metric) ?? 'mean'
    const reference = referenceFor(baseline, id, metric, stat, referenceOptions(metric, { gate, ...options }))
    if (reference) values[metric] = { stat, value: reference.value }
  }
  return values
}
