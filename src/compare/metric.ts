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
 *
 * A share gated in points (goodput's `max-drop`) is judged by the same rule with L = the points ÷ the reference
 * (dropConfig), so the band, the twice-the-limit rule and more rounds apply to it unchanged.
 */
import { formatDelta, formatPercent, formatPoints, formatPointsDelta, formatSigned } from '../core/format.js'
import { METRICS, isDrop, metricLabel, type CeilingMetric, type ComparedMetric } from '../core/metrics.js'
import type { CeilingGateConfig, DropGateConfig, GateMetricConfig } from '../core/plan.js'
import type { MetricVerdict } from '../core/results.js'
import { NOISE_Z, noiseBand, roundsFor, type NoiseModel } from './noise.js'
import { relativeLimit, type Reference } from './reference.js'
import { pastTwiceTheLimit, twiceTheLimit } from './rules.js'
import { DETECT_Z } from './sequential.js'

export interface MetricInput {
  metric: ComparedMetric
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
  // The band is NOISE_Z standard deviations of the change: the smallest detectable loss is the guarantees'
  // quantiles over that sd (sequential.ts DETECT_Z): MetricVerdict.mde, in the change's own unit below.
  const mde = (DETECT_Z * band) / NOISE_Z

  const { change, limits, noiseText } = describe(input, band)
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
      mde,
      limit,
    }
    if (reference.rebased) v.rebased = reference.rebased
    if (noise.launchSpread !== undefined) v.launchSpread = noise.launchSpread
    return v
  }
  const detects = isDrop(metric) ? `${formatPoints(mde * base)} points` : formatPercent(mde)
  const undecided = (reason: string, target: number): MetricVerdict => {
    const rounds = roundsFor(noise, target)
    const v = verdict(
      'inconclusive',
      `${reason}; could detect a loss ≥ ${detects} at this noise; ${decidedBy(rounds, noise)}`,
    )
    v.needs = typeof rounds === 'number' ? 'rounds' : rounds
    if (typeof rounds === 'number') v.moreRounds = rounds
    return v
  }

  if (pastTwiceTheLimit(worse, limit))
    return verdict('regression', `${change} (${limits}, ${noiseText}): more than twice the limit`)
  if (worse > limit) {
    return worse > band
      ? verdict('regression', `${change} (${limits}, ${noiseText})`)
      : undecided(`${change} (${limits}) but within ${noiseText}`, worse)
  }
  if (-worse > limit && -worse > band) return verdict('improvement', `${change} (${limits}, ${noiseText})`)
  if (pastTwiceTheLimit(band, limit))
    return undecided(`${change}: ${noiseText} is too wide for the ${limits}`, twiceTheLimit(limit))
  return verdict('pass', `${change} (${limits}, ${noiseText})`)
}

/**
 * The change, the limit and the band in words: relative for speeds and latencies (`decode tok/s −6.0%`, `limit 5%`,
 * `noise ±2.1%`), in points for a share (`goodput 100% → 94% (−6 points)`, `limit 5 points`, `noise ±3.5 points`).
 */
function describe(input: MetricInput, band: number): { change: string; limits: string; noiseText: string } {
  const { metric, config, current } = input
  const base = input.reference.value
  const info = METRICS[metric]
  if (isDrop(metric)) {
    return {
      change: `${info.label} ${info.format(base)} → ${info.format(current)} (${formatPointsDelta(current - base)})`,
      limits: `limit ${formatPoints(config.minDelta ?? 0)} points`,
      noiseText: `noise ±${formatPoints(band * base)} points`,
    }
  }
  const delta = (current - base) / base
  return {
    change: `${metricLabel(metric, config.stat)} ${formatDelta(delta)}${config.minDelta === undefined ? '' : ` / ${formatSigned(current - base, info.unit, base)}`}`,
    limits: `limit ${formatPercent(config.maxRegression)}${config.minDelta === undefined ? '' : ` and ${config.minDelta} ${info.unit}`}`,
    noiseText: `noise ±${formatPercent(band)}`,
  }
}

/**
 * A `drop` limit as the relative rule judges it: no relative part, and the points as the absolute worsening, so
 * the effective limit is max-drop ÷ the reference (5 points of a 50 % baseline is a 10 % relative drop).
 */
export function dropConfig(config: DropGateConfig): GateMetricConfig {
  return { maxRegression: 0, minDelta: config.maxDrop, stat: 'mean' }
}

/**
 * A share whose baseline is 0 (no request met the SLO there) cannot drop, and its noise, relative to the
 * reference, is undefined: it passes, or improves when it rose by more than the limit. A share still at 0 is an SLO
 * out of reach on both sides, which slo-reach.ts decides before asking this.
 */
export function judgeFromZero(metric: ComparedMetric, config: GateMetricConfig, current: number): MetricVerdict {
  const info = METRICS[metric]
  const rose = current > (config.minDelta ?? 0)
  return {
    status: rose ? 'improvement' : 'pass',
    metric,
    stat: 'mean',
    current,
    baseline: 0,
    delta: null,
    reason: `${info.label} ${info.format(0)} → ${info.format(current)} (the baseline's is 0: it cannot drop)`,
  }
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
