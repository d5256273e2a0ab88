/** The verdict on one measured cell against the baseline (pure). */
import { GATED_METRICS, type GateConfig, type GatedMetric } from '../config/plan.js'
import type { CellResult, CellVerdict, MetricVerdict } from '../results.js'
import { baselineSample, hasBaseline, isFirstRun, type BaselineSample, type BaselineView } from './baseline.js'
import { metricKey, tryReadMetric } from './keys.js'
import { judgeMetric, metricLabel } from './metric.js'
import { isUsable } from './stats.js'

export const FIRST_RUN_NOTE = 'first run: no baseline yet, passes'
export const NEW_CELL_NOTE = 'no baseline for this cell yet'
export const NOT_MEASURED_NOTE = 'in the baseline, not measured in this run'

/** The report's headline figures; their baseline values travel in `CellVerdict.reference`. */
export const REFERENCE_METRICS: readonly GatedMetric[] = ['decode', 'ttft', 'tpot', 'output-throughput']

const SEVERITY: Record<MetricVerdict['status'], number> = { pass: 0, improvement: 1, inconclusive: 2, regression: 3 }

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
    const config = gate[metric]
    if (!config) continue
    const label = metricLabel(metric, config.stat)
    const sample = baselineSample(baseline, cell.id, metric, config.stat)
    const current = tryReadMetric(cell.metrics, metric, config.stat)
    if (!sample) {
      notes.push(`${label}: no baseline value`)
    } else if (current === undefined || !(sample.value > 0)) {
      notes.push(`${label}: ${current === undefined ? 'not measured' : 'baseline is not positive'}, cannot compare`)
      unknown = true
    } else {
      const rounds = cell.rounds.filter((r) => r.steady).map((r) => tryReadMetric(r.metrics, metric, config.stat))
      metrics[metric] = judgeMetric({ metric, config, current, rounds: rounds.filter(isUsable), baseline: sample })
      source ??= baselineNote(sample)
    }
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

function baselineNote(sample: BaselineSample): string {
  if (sample.source === 'file') return 'baseline: baseline file'
  return sample.steady.length === 1 ? 'baseline: one history run' : `baseline: median of ${sample.steady.length} runs`
}

/** Baseline values of the report's headline figures, in the stat the gate compares (mean when not gated). */
function referenceValues(id: string, baseline: BaselineView, gate: GateConfig): Record<string, number> {
  const values: Record<string, number> = {}
  for (const metric of REFERENCE_METRICS) {
    const stat = gate[metric]?.stat ?? 'mean'
    const sample = baselineSample(baseline, id, metric, stat)
    if (sample) values[metricKey(metric, stat)] = sample.value
  }
  return values
}
