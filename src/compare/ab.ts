/**
 * Same-box A/B against the base commit (pure): a cell judged from launches of the base commit's build (the `base`
 * arm) and the PR's (`pr`) alternated on this machine, rather than against a baseline stored on another day.
 *
 * Model. Launch i of arm a measures level × a × d_i × ε_i: the arm's true speed, the drift d_i the box goes
 * through while the A/B runs (clocks settling, a chassis warming up) and the launch's own regime ε_i (one launch of
 * an engine can settle faster or slower than the next, vLLM #39903). Launches run B P P B B P P B … (abOrder) and
 * each is paired with its neighbour, (0,1), (2,3), …: one launch of each arm, one launch apart. So
 * r_j = ln(pr_j / base_j) = ln(a_pr / a_base) ± δ + noise, δ the drift over one launch with its sign alternating
 * between B-P and P-B pairs, and a linear drift cancels in the mean of every two pairs. reth's benchmark CI runs
 * baseline, feature, feature, baseline for that reason: temporally adjacent pairs cancel thermal and cache drift
 * (paradigmxyz/reth PRs #22321, #22335). tango-bench measures the two versions as pairs (bazhenov/tango,
 * src/lib.rs); Chromium's Pinpoint runs both arms on the same device.
 *
 * - Change: exp(mean r) − 1, which is GM(pr) / GM(base) − 1 (geometric means of the arms' steady values).
 * - Interval: mean r ± h, h = z·σ/√n over n pairs, z = 1.96, σ² = max(s², σ0²): s the pairs' sample sd (n ≥ 2)
 *   and σ0² = 2f² + mean(se_pr² + se_base²) the spread the model expects of one pair — two launches' regimes (f,
 *   the target's `noise-floor`, the launch-to-launch spread assumed) and each launch's standard error from its
 *   warm rounds (sd / √k, relative). With two pairs s has one degree of freedom and often comes out far too
 *   small; σ0 keeps a lucky pair from narrowing the interval.
 * - Rule, with `worse` the change for the worse and L the limit (relativeLimit: the stricter of max-regression
 *   and min-delta, §8): regression when worse − h > L (the interval lies past the limit) or worse > 2L (a loss
 *   that large fails whatever the noise); improvement when −worse − h > L; inconclusive when worse > L (the
 *   interval straddles the limit); pass when worse + h ≤ 2L; otherwise inconclusive (the interval could hide a
 *   loss of twice the limit).
 * - An inconclusive metric says how many more launches per arm would decide it: h shrinks as 1/√n, until
 *   h < worse − L (a change straddling the limit) or h ≤ 2L − worse (a wide interval), at most MAX_MORE_LAUNCHES.
 *
 * A cell's launches become these values in ab-cell.ts.
 */
import { formatDelta, formatPercent, formatPoints } from '../core/format.js'
import { METRICS, isDrop, metricLabel, type ComparedMetric } from '../core/metrics.js'
import type { GateMetricConfig } from '../core/plan.js'
import type { MetricVerdict } from '../core/results.js'
import { mean } from '../core/stats.js'
import { NOISE_FLOOR } from './noise.js'
import { relativeLimit } from './reference.js'
import { pastTwiceTheLimit, twiceTheLimit } from './rules.js'

export type Arm = 'base' | 'pr'
export const AB_Z = 1.96
/**
 * The most launches per arm an A/B runs while a cell is undecided: three ABBA blocks. Past the minimum
 * (`ab-launches`) another block runs only while a cell is still undecided, and a verdict needs its whole interval
 * on one side of the limit at every look, so the looks add no false regression of note (an identical PR's
 * interval lies past the limit far less often than 1 %).
 */
export const AB_MAX_LAUNCHES = 6
/** The most launches per arm an inconclusive A/B asks for on top of those it ran. */
export const MAX_MORE_LAUNCHES = 20

/** B P P B B P P B …: `launchesPerArm` launches of each arm, every adjacent pair one of each. */
export function abOrder(launchesPerArm: number): Arm[] {
  if (!Number.isInteger(launchesPerArm) || launchesPerArm < 1)
    throw new RangeError(`ab-launches: expected a whole number of launches per arm ≥ 1, got ${launchesPerArm}`)
  return Array.from({ length: 2 * launchesPerArm }, (_, i) => ((i + 1) % 4 < 2 ? 'base' : 'pr'))
}

export interface AbValue {
  arm: Arm
  /** The launch's steady value of the metric; positive. */
  value: number
  /** Its relative standard error from the launch's warm rounds (0 or absent with one round). */
  se?: number
}

export interface AbMetricInput {
  metric: ComparedMetric
  config: GateMetricConfig
  /** In launch order: launches 2j and 2j + 1 are one base and one pr launch. */
  launches: readonly AbValue[]
  /** Launch-to-launch spread assumed, as a fraction (`noise-floor`; default 1.5 %). */
  noiseFloor?: number
}

/** The change on the log scale, its half-width h, the pairs n and each arm's geometric mean (see the header). */
function abPairs(launches: readonly AbValue[], noiseFloor = NOISE_FLOOR) {
  if (launches.length < 2 || launches.length % 2)
    throw new RangeError(`A/B: expected pairs of launches, got ${launches.length} launches`)
  const ratios: number[] = []
  const expected: number[] = []
  for (let j = 0; j < launches.length; j += 2) {
    const [a, b] = [launches[j], launches[j + 1]]
    if (a.arm === b.arm) throw new RangeError(`A/B: launches ${j + 1} and ${j + 2} are both ${a.arm} launches`)
    const [base, pr] = a.arm === 'base' ? [a, b] : [b, a]
    if (!(base.value > 0 && pr.value > 0)) throw new RangeError(`A/B: launch values must be positive`)
    ratios.push(Math.log(pr.value / base.value))
    expected.push(2 * noiseFloor ** 2 + (base.se ?? 0) ** 2 + (pr.se ?? 0) ** 2)
  }
  const n = ratios.length
  const m = mean(ratios)
  const s2 = n >= 2 ? ratios.reduce((sum, r) => sum + (r - m) ** 2, 0) / (n - 1) : 0
  const geo = (arm: Arm) => Math.exp(mean(launches.filter((l) => l.arm === arm).map((l) => Math.log(l.value))))
  return {
    n,
    logChange: m,
    halfWidth: AB_Z * Math.sqrt(Math.max(s2, mean(expected)) / n),
    base: geo('base'),
    pr: geo('pr'),
  }
}

/** The A/B verdict on one relative metric (see the module header). */
export function abMetric(input: AbMetricInput): MetricVerdict {
  const { metric, config } = input
  const info = METRICS[metric]
  const ab = abPairs(input.launches, input.noiseFloor)
  const delta = Math.expm1(ab.logChange)
  const worse = info.higherIsBetter ? -delta : delta
  const limit = relativeLimit(config, ab.base)
  const h = ab.halfWidth
  const limits = isDrop(metric)
    ? `limit ${formatPoints(config.minDelta ?? 0)} points`
    : `limit ${formatPercent(config.maxRegression)}${config.minDelta === undefined ? '' : ` and ${config.minDelta} ${info.unit}`}`
  const said = `${metricLabel(metric, config.stat)} ${formatDelta(delta)} ± ${formatPercent(h)} (A/B on this box, ABBA × ${ab.n}: base ${info.format(ab.base)} → PR ${info.format(ab.pr)}; ${limits})`
  const verdict = (status: MetricVerdict['status'], why?: string): MetricVerdict => ({
    status,
    metric,
    stat: info.scalar ? 'mean' : config.stat,
    current: ab.pr,
    baseline: ab.base,
    delta,
    reason: why ? `${said}: ${why}` : said,
    band: h,
  })
  const undecided = (why: string, target: number): MetricVerdict => {
    const more = moreLaunches(ab.n, h, target)
    const decides =
      more < MAX_MORE_LAUNCHES
        ? `about ${more} more launch${more === 1 ? '' : 'es'} per arm would decide`
        : `at least ${more} more launches per arm would be needed`
    return { ...verdict('inconclusive', `${why}; ${decides}`), needs: 'launches', moreLaunches: more }
  }

  if (worse - h > limit) return verdict('regression')
  if (pastTwiceTheLimit(worse, limit)) return verdict('regression', 'more than twice the limit')
  if (-worse - h > limit) return verdict('improvement')
  if (worse > limit) return undecided('the interval straddles the limit', worse - limit)
  if (!pastTwiceTheLimit(worse + h, limit)) return verdict('pass')
  return undecided('the interval is too wide to rule out a loss of twice the limit', twiceTheLimit(limit) - worse)
}

/** Launches per arm to add so that h = z·σ/√n falls under `target` (at least one, at most MAX_MORE_LAUNCHES). */
function moreLaunches(n: number, h: number, target: number): number {
  const needed = target > 0 ? Math.floor(n * (h / target) ** 2) + 1 : Infinity
  return Math.min(Math.max(needed - n, 1), MAX_MORE_LAUNCHES)
}
