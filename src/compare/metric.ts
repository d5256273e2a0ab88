/** The verdict on one gated metric of one cell: magnitude (max-regression, min-delta) and noise must both agree. */
import type { GateMetricConfig, GatedMetric } from '../config/plan.js'
import type { MetricVerdict } from '../results.js'
import { formatDelta, formatPercent, formatSigned } from '../report/format.js'
import type { BaselineSample } from './baseline.js'
import { GATED, metricKey } from './keys.js'
import { noiseBand } from './noise.js'

export interface MetricInput {
  metric: GatedMetric
  config: GateMetricConfig
  /** Steady-state value of this run. */
  current: number
  /** This run's steady rounds, for the noise estimate. */
  rounds: readonly number[]
  /** Must be positive: a relative change against zero means nothing. */
  baseline: BaselineSample
}

/** `decode tok/s`, `TTFT p99`: the stat is named when it is not the mean. */
export function metricLabel(metric: GatedMetric, stat: string): string {
  const info = GATED[metric]
  return info.scalar || stat === 'mean' ? info.label : `${info.label} ${stat}`
}

export function judgeMetric(input: MetricInput): MetricVerdict {
  const { metric, config, current, rounds, baseline } = input
  const info = GATED[metric]
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
    metric: metricKey(metric, config.stat),
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
