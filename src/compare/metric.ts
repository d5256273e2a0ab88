/**
 * The verdict on one gated metric of one cell. With L the effective limit (the stricter of max-regression and
 * min-delta) and h the noise band (noise.ts), for a change `worse` (positive when for the worse):
 *
 * - worse > 2L: regression, whatever the band — a loss this large must never pass for noise;
 * - L < worse, worse > h: regression; L < worse ≤ h: inconclusive;
 * - −worse > L and −worse > h: improvement;
 * - otherwise pass, unless h > 2L: a band that wide could hide a loss of twice the limit, so inconclusive.
 *
 * An inconclusive verdict says what would decide it (`needs`): more warm rounds, with how many (`moreRounds`,
 * from the band's 1/√k part) until the band is narrower than the change measured — a change that holds is then
 * beyond the noise, one that was noise has shrunk toward the limit — or, for a change within the limit, until it
 * is under 2L; a quieter box or more default-branch runs when rounds cannot narrow it enough.
 */
import { formatDelta, formatPercent, formatSigned } from '../core/format.js'
import { METRICS, metricLabel, type CeilingMetric, type RelativeMetric } from '../core/metrics.js'
import type { CeilingGateConfig, GateMetricConfig } from '../core/plan.js'
import type { MetricVerdict } from '../core/results.js'
import { noiseBand, roundsFor, type NoiseModel } from './noise.js'
import { relativeLimit, type Reference } from './reference.js'

export interface MetricInput {
  metric: RelativeMetric
  config: GateMetricConfig
  /** Steady-state value of the current side. */
  current: number
  /** Must have a positive value: a relative change against zero means nothing. */
  reference: Reference
  noise: NoiseModel
}

export function judgeMetric(input: MetricInput): MetricVerdict {
  const { metric, config, current, reference, noise } = input
  const info = METRICS[metric]
  const base = reference.value
  const delta = (current - base) / base
  // Positive when the change is for the worse, whichever way the metric points.
  const worse = info.higherIsBetter ? -delta : delta
  const limit = relativeLimit(config, base)
  const band = noiseBand(noise)

  const change = `${metricLabel(metric, config.stat)} ${formatDelta(delta)}${config.minDelta === undefined ? '' : ` / ${formatSigned(current - base, info.unit, base)}`}`
  const limits = `limit ${formatPercent(config.maxRegression)}${config.minDelta === undefined ? '' : ` and ${config.minDelta} ${info.unit}`}`
  const noiseText = `noise ±${formatPercent(band)}`
  const verdict = (status: MetricVerdict['status'], reason: string): MetricVerdict => {
    const v: MetricVerdict = {
      status,
      metric,
      stat: info.scalar ? 'mean' : config.stat,
      current,
      baseline: base,
      delta,
      reason,
      band,
    }
    if (reference.rebased) v.rebased = reference.rebased
    return v
  }
  const undecided = (reason: string, target: number): MetricVerdict => {
    const rounds = roundsFor(noise, target)
    const v = verdict('inconclusive', `${reason}; ${decidedBy(rounds, noise)}`)
    v.needs = typeof rounds === 'number' ? 'rounds' : rounds
    if (typeof rounds === 'number') v.moreRounds = rounds
    return v
  }

  if (worse > 2 * limit) return verdict('regression', `${change} (${limits}, ${noiseText}): more than twice the limit`)
  if (worse > limit) {
    return worse > band
      ? verdict('regression', `${change} (${limits}, ${noiseText})`)
      : undecided(`${change} (${limits}) but within ${noiseText}`, worse)
  }
  if (-worse > limit && -worse > band) return verdict('improvement', `${change} (${limits}, ${noiseText})`)
  if (band > 2 * limit) return undecided(`${change}: ${noiseText} is too wide for the ${limits}`, 2 * limit)
  return verdict('pass', `${change} (${limits}, ${noiseText})`)
}

/** What would narrow the band, in words. */
function decidedBy(rounds: number | 'quieter-box' | 'baseline', noise: NoiseModel): string {
  if (typeof rounds === 'number') return `about ${rounds} more warm round${rounds === 1 ? '' : 's'} would decide`
  const launch = formatPercent(Math.sqrt(noise.restart / noise.launches))
  if (rounds === 'quieter-box')
    return `launch-to-launch noise (±${launch} a run) leaves no room: needs a quieter machine`
  if (noise.assumed) return `launch-to-launch noise is assumed ±${launch} until more default-branch runs measure it`
  return `the reference is uncertain by ±${formatPercent(Math.sqrt(noise.reference))}: needs more default-branch runs`
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
  const status =
    current > config.max && baseline <= config.max
      ? 'regression'
      : current < baseline && baseline > config.max
        ? 'improvement'
        : 'pass'
  return { status, metric, stat: 'mean', current, baseline, delta, reason: said }
}
