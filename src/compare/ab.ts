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
 *   the target's `noise-floor`, the launch-to-launch spread assumed, or the spread main's runs measured where
 *   larger: ab-cell.ts launchSpreadOf) and each launch's standard error from its warm rounds (sd / √k, relative).
 *   With two pairs s has one degree of freedom and often comes out far too small; σ0 keeps a lucky pair from
 *   narrowing the interval.
 * - Rule: the sequential test of sequential.ts on the pairs' log-ratios, between no change and a loss of twice the
 *   limit L (relativeLimit: the stricter of max-regression and min-delta): regression, pass or improvement as soon
 *   as the likelihood ratio passes 50 : 1 for a loss or 30 : 1 against one, after every pair from the minimum on.
 *   Undecided, it asks for another pair; on the final verdict (no pair may follow: `ab-max-launches` or
 *   `ab-budget`), a loss past twice the limit is a regression whatever the noise (rules.ts), an interval past the
 *   limit a regression, a change within the limit whose one-sided 99 % bound rules out 2L a pass (PASS_Z), and
 *   anything else inconclusive, saying how many more launches per arm would decide and whether it leans toward a
 *   loss (the change past L, the test's midpoint: `leansToLoss`).
 * - Smallest detectable change (`mde`): (z₀.₉₉ + z₀.₉₅)·σ/√n, the loss n pairs of sd σ catch 95 % of the time
 *   at 1 % false regressions; σ the larger of the pairs' sample sd and the expected σ0.
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
import { detectable, pairsToDecide, sequentialTest, twiceTheLimitLogs } from './sequential.js'

export type Arm = 'base' | 'pr'
export const AB_Z = 1.96
/**
 * The last look's pass: the one-sided 99 % bound (z = 2.326) clear of twice the limit, so a true loss of 2L that
 * reaches the last look undecided passes there at most 1 % of the time, the guarantee's rate (a 95 % interval
 * would let 2.5 % through).
 */
export const PASS_Z = 2.326
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
  /** No pair may follow (the most launches per arm, or the budget): undecided is final. */
  final?: boolean
  /**
   * Per pair, the squared standard error of its log-ratio from its rounds paired on the same prompts
   * (paired-rounds.ts), in place of the two launches' own; undefined where the rounds do not pair.
   */
  pairVariances?: readonly (number | undefined)[]
}

/** Paired log-ratios of one metric and what the noise model expects of a pair (see the header). */
export interface PairedRatios {
  /** ln(PR / base) of each pair, in order. */
  ratios: number[]
  /** The pair variance the noise model expects (s₀). */
  expected: number
  /** Each arm's geometric mean. */
  base: number
  pr: number
  /** How the pairs were formed, for the reason (`A/B on this box, ABBA × 2`). */
  said: string
}

/** A metric's pairs of launches: one base and one PR launch each, with their expected variance (see the header). */
export function launchPairs(
  launches: readonly AbValue[],
  noiseFloor = NOISE_FLOOR,
  pairVariances: readonly (number | undefined)[] = [],
): PairedRatios {
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
    expected.push(2 * noiseFloor ** 2 + (pairVariances[j / 2] ?? (base.se ?? 0) ** 2 + (pr.se ?? 0) ** 2))
  }
  const geo = (arm: Arm) => Math.exp(mean(launches.filter((l) => l.arm === arm).map((l) => Math.log(l.value))))
  const said = `A/B on this box, ABBA × ${ratios.length}`
  return { ratios, expected: mean(expected), base: geo('base'), pr: geo('pr'), said }
}

/** The mean log-ratio, its half-width h and the pairs n. */
function summary(p: PairedRatios) {
  const n = p.ratios.length
  const m = mean(p.ratios)
  const s2 = n >= 2 ? p.ratios.reduce((sum, r) => sum + (r - m) ** 2, 0) / (n - 1) : 0
  return { n, logChange: m, halfWidth: AB_Z * Math.sqrt(Math.max(s2, p.expected) / n) }
}

/** The A/B verdict on one relative metric (see the module header). */
export function abMetric(input: AbMetricInput): MetricVerdict {
  return pairedVerdict({ ...input, pairs: launchPairs(input.launches, input.noiseFloor, input.pairVariances) })
}

/** The verdict on one relative metric from its paired log-ratios, however they were paired. */
export function pairedVerdict(input: Omit<AbMetricInput, 'launches'> & { pairs: PairedRatios }): MetricVerdict {
  const { metric, config, pairs } = input
  const info = METRICS[metric]
  const ab = { ...summary(pairs), base: pairs.base, pr: pairs.pr, ratios: pairs.ratios, expected: pairs.expected }
  const delta = Math.expm1(ab.logChange)
  const worse = info.higherIsBetter ? -delta : delta
  const limit = relativeLimit(config, ab.base)
  const h = ab.halfWidth
  // The worse direction of a speed is its drop.
  const towardWorse = (logRatio: number) => (info.higherIsBetter ? -logRatio : logRatio)
  const twice = twiceTheLimit(limit)
  const { loss, gain } = twiceTheLimitLogs(limit, info.higherIsBetter)
  const seq = { worse: ab.ratios.map(towardWorse), loss, gain, expectedVariance: ab.expected }
  const test = sequentialTest(seq)
  const relative = (logLoss: number) => (info.higherIsBetter ? -Math.expm1(-logLoss) : Math.expm1(logLoss))
  const mde = relative(detectable(test.sd, ab.n))
  const limits = isDrop(metric)
    ? `limit ${formatPoints(config.minDelta ?? 0)} points`
    : `limit ${formatPercent(config.maxRegression)}${config.minDelta === undefined ? '' : ` and ${config.minDelta} ${info.unit}`}`
  const said = `${metricLabel(metric, config.stat)} ${formatDelta(delta)} ± ${formatPercent(h)} (${pairs.said}: base ${info.format(ab.base)} → PR ${info.format(ab.pr)}; ${limits})`
  const verdict = (status: MetricVerdict['status'], why?: string): MetricVerdict => ({
    status,
    metric,
    stat: info.scalar ? 'mean' : config.stat,
    current: ab.pr,
    baseline: ab.base,
    delta,
    reason: why ? `${said}: ${why}` : said,
    band: h,
    mde,
    limit,
  })
  const odds = (llr: number) =>
    `${Math.exp(Math.min(llr, 50)) >= 1e4 ? '> 10,000' : Math.round(Math.exp(llr)).toLocaleString('en-US')} : 1`
  const lossText = formatPercent(twice)
  if (test.call === 'regression')
    return verdict('regression', `a loss of ${lossText} (twice the limit) is ${odds(test.lossLlr)} likelier than none`)
  if (test.call === 'improvement')
    return verdict('improvement', `a gain of ${lossText} is ${odds(test.gainLlr)} likelier than none`)
  if (test.call === 'pass')
    return verdict('pass', `no change is ${odds(-test.lossLlr)} likelier than a loss of ${lossText} (twice the limit)`)
  const last = input.final ? lastLook(worse, h, limit) : undefined
  if (last) return verdict(last.status, last.why)
  const more = pairsToDecide(seq, ab.n + MAX_MORE_LAUNCHES) - ab.n
  const decides =
    more < MAX_MORE_LAUNCHES
      ? `about ${more} more launch${more === 1 ? '' : 'es'} per arm would decide`
      : `at least ${more} more launches per arm would be needed`
  const why = `the sequential test is undecided (could detect a loss ≥ ${formatPercent(mde)} at this noise; ${decides})`
  const undecided: MetricVerdict = { ...verdict('inconclusive', why), needs: 'launches', moreLaunches: more }
  if (worse > limit) undecided.leansToLoss = true
  return undecided
}

/**
 * The last look, when the sequential test is still undecided: the fixed-sample rule on the interval decides what
 * it can (between no change and 2L either answer is right, and the interval is shown); a loss past 2L fails
 * whatever the noise.
 */
function lastLook(worse: number, h: number, limit: number): { status: 'regression' | 'pass'; why: string } | undefined {
  if (pastTwiceTheLimit(worse, limit))
    return { status: 'regression', why: 'more than twice the limit, the sequential test undecided at the last launch' }
  if (worse - h > limit) return { status: 'regression', why: 'the interval lies past the limit at the last launch' }
  if (worse <= limit && !pastTwiceTheLimit(worse + (h * PASS_Z) / AB_Z, limit))
    return { status: 'pass', why: 'the interval rules out a loss of twice the limit at the last launch' }
  return undefined
}
