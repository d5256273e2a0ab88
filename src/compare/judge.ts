/** The verdict on one measured cell against the baseline (pure). */
import { GATED_METRICS, HEADLINE_METRICS, isRelative, metricLabel, readMetric, type GateStat, type GatedMetric } from '../core/metrics.js'
import type { GateConfig } from '../core/plan.js'
import type { CellResult, CellVerdict, MetricVerdict } from '../core/results.js'
import { isUsable } from '../core/stats.js'
import { baselineSample, hasBaseline, isFirstRun, type BaselineSample, type BaselineView } from './baseline.js'
import { judgeCeiling, judgeMetric } from './metric.js'

export const FIRST_RUN_NOTE = 'first run: no baseline yet, passes'
export const NEW_CELL_NOTE = 'no baseline for this cell yet'
export const NOT_MEASURED_NOTE = 'in the baseline, not measured in this run'

const SEVERITY: Record<MetricVerdict['status'], number> = { pass: 0, improvement: 1, inconclusive: 2, regression: 3 }

/** What one gated metric of a cell came to: a verdict, or a note on why it could not be compared. */
interface Judged {
  verdict?: MetricVerdict
  note?: string
  /** The metric should have been comparable and was not. */
  unknown?: boolean
  sample?: BaselineSample
}

export function judgeCell(cell: CellResult, baseline: BaselineView, gate: GateConfig): CellVerdict {
  if (cell.status === 'error') return { status: 'error', metrics: {}, note: cell.error ?? 'the cell could not be measured' }
  if (!cell.metrics) return { status: 'missing', metrics: {}, note: NOT_MEASURED_NOTE }
  const flagged = cell.flags.length ? `flagged (${cell.flags.join(', ')}): not compared` : undefined

  if (!hasBaseline(baseline, cell.id)) {
    const note = isFirstRun(baseline) ? FIRST_RUN_NOTE : NEW_CELL_NOTE
    return flagged ? { status: 'inconclusive', metrics: {}, note: `${flagged}; ${note}` } : { status: 'new', metrics: {}, note }
  }

  const metrics: CellVerdict['metrics'] = {}
  const notes: string[] = []
  let source: string | undefined
  let unknown = false
  for (const metric of GATED_METRICS) {
    const judged = judgeGated(cell, baseline, gate, metric)
    if (!judged) continue
    if (judged.verdict) metrics[metric] = judged.verdict
    if (judged.note) notes.push(judged.note)
    if (judged.sample) source ??= baselineNote(judged.sample)
    unknown ||= judged.unknown === true
  }

  const verdicts = Object.values(metrics)
  // A flagged workload (short outputs, missing usage, …) is not the workload the baseline measured.
  if (flagged) for (const v of verdicts) if (v.status === 'regression' || v.status === 'improvement') v.status = 'inconclusive'
  let status: CellVerdict['status'] = verdicts.reduce<MetricVerdict['status']>((w, v) => (SEVERITY[v.status] > SEVERITY[w] ? v.status : w), 'pass')
  if ((flagged || unknown) && status !== 'regression') status = 'inconclusive'
  else if (!verdicts.length && !unknown && Object.keys(gate).length) status = 'new'
  if (!Object.keys(gate).length) notes.push('no gated metrics')
  const note = [flagged, source, ...notes].filter(Boolean).join('; ')

  return { status, metrics, note: note || undefined, reference: referenceValues(cell.id, baseline, gate) }
}

/** One gated metric of a cell against its baseline sample; undefined when the gate does not use the metric. */
function judgeGated(cell: CellResult, baseline: BaselineView, gate: GateConfig, metric: GatedMetric): Judged | undefined {
  const stat = gatedStat(gate, metric)
  if (stat === undefined) return undefined
  const label = metricLabel(metric, stat)
  const sample = baselineSample(baseline, cell.id, metric, stat)
  const current = readMetric(cell.metrics, metric, stat)
  if (!sample) return { note: `${label}: no baseline value` }
  if (current === undefined) return { note: `${label}: not measured, cannot compare`, unknown: true }
  if (!isRelative(metric)) {
    const config = gate[metric]!
    return { verdict: judgeCeiling({ metric, config, current, baseline: sample.value }), sample }
  }
  if (!(sample.value > 0)) return { note: `${label}: baseline is not positive, cannot compare`, unknown: true }
  const config = gate[metric]!
  const rounds = cell.rounds.filter((r) => r.steady).map((r) => readMetric(r.metrics, metric, stat))
  return { verdict: judgeMetric({ metric, config, current, rounds: rounds.filter(isUsable), baseline: sample }), sample }
}

/** The statistic the gate compares for a metric; undefined when the metric is not gated. */
function gatedStat(gate: GateConfig, metric: GatedMetric): GateStat | undefined {
  if (!isRelative(metric)) return gate[metric] ? 'mean' : undefined
  return gate[metric]?.stat
}

function baselineNote(sample: BaselineSample): string {
  if (sample.source === 'file') return 'baseline: baseline file'
  return sample.steady.length === 1 ? 'baseline: one history run' : `baseline: median of ${sample.steady.length} runs`
}

/** Baseline values of the report's headline figures, in the stat the gate compares (mean when not gated). */
function referenceValues(id: string, baseline: BaselineView, gate: GateConfig): CellVerdict['reference'] {
  const values: CellVerdict['reference'] = {}
  for (const metric of HEADLINE_METRICS) {
    const stat = gatedStat(gate, metric) ?? 'mean'
    const sample = baselineSample(baseline, id, metric, stat)
    if (sample) values[metric] = { stat, value: sample.value }
  }
  return values
}
