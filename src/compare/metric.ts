/** The verdict on one gated metric of one cell: magnitude (max-regression, min-delta) and noise must both agree. */
import { formatDelta, formatPercent, formatSigned } from '../core/format.js'
import { METRICS, metricLabel, type CeilingMetric, type RelativeMetric } from '../core/metrics.js'
import type { CeilingGateConfig, GateMetricConfig } from '../core/plan.js'
import type { MetricVerdict } from '../core/results.js'
import type { BaselineSample } from './baseline.js'
import { noiseBand } from './noise.js'

export interface MetricInput {
  metric: RelativeMetric
  config: GateMetricConfig
  /** Steady-state value of this run. */
  current: number
  /** This run's steady rounds, for the noise estimate. */
  rounds: readonly number[]
  /** Must be positive: a relative change against zero means nothing. */
  baseline: BaselineSample
}

export function judgeMetric(input: MetricInput): MetricVerdict {
  const { metric, config, current, rounds, baseline } = input
  const info = METRICS[metric]
  const base = baseline.value
  const delta = (current - base) / base
  // Positive when the change is for the worse, whichever way the metric points.
  const worse = info.higherIsBetter ? -delta : delta
  // The effective limit is the stricter of the relative and the absolute one.
  const limit = Math.max(config.maxRegression, config.minDelta === undefined ? 0 : config.minDelta / base)
  const band = noiseBand(rounds, baseline)

  const change = `${metricLabel(metric, config.stat)} ${formatDelta(delta)}${config.minDelta === undefined ? '' : ` / ${formatSigned(current - base, info.unit)}`}`
  const limits = `limit ${formatPercent(config.maxRegression)}${config.minDelta === undefined ? '' : ` and ${config.minDelta} ${info.unit}`}`
  const verdict = (status: MetricVerdict['status'], reason: string): MetricVerdict => ({
    status,
    metric,
    stat: info.scalar ? 'mean' : config.stat,
    current,
    baseline: base,
    delta,
    reason,
  })

  if (band === undefined) {
    // Without a spread nothing can be called beyond noise; only a change for the worse leaves a doubt.
    if (worse > limit) return verdict('inconclusive', `${change} (${limits}) but noise unknown: needs 2 steady rounds`)
    return verdict('pass', `${change} (${limits}, noise unknown)`)
  }
  const noise = `noise ±${formatPercent(band)}`
  if (worse > limit) {
    return worse > band ? verdict('regression', `${change} (${limits}, ${noise})`) : verdict('inconclusive', `${change} (${limits}) but within ${noise}`)
  }
  if (-worse > limit && -worse > band) return verdict('improvement', `${change} (${limits}, ${noise})`)
  // A band this wide could hide a regression of twice the limit: a pass would claim more than was measured.
  if (band > 2 * limit) return verdict('inconclusive', `${change}: ${noise} is too wide for the ${limits}`)
  return verdict('pass', `${change} (${limits}, ${noise})`)
}

export interface CeilingInput {
  metric: CeilingMetric
  config: CeilingGateConfig
  current: number
  /** The baseline's value; a share at or above the ceiling there is what the code already did. */
  baseline: number
}

/** A share that must stay under its ceiling: it regresses when this run crosses a ceiling the baseline kept to. */
export function judgeCeiling(input: CeilingInput): MetricVerdict {
  const { metric, config, current, baseline } = input
  const info = METRICS[metric]
  const delta = baseline > 0 ? (current - baseline) / baseline : current > 0 ? Infinity : 0
  const said = `${info.label} ${info.format(current)} (baseline ${info.format(baseline)}, limit ${info.format(config.max)})`
  const status = current > config.max && baseline <= config.max ? 'regression' : current < baseline && baseline > config.max ? 'improvement' : 'pass'
  return { status, metric, stat: 'mean', current, baseline, delta, reason: said }
}
