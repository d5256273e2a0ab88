/**
 * The sequential paired test a same-box A/B decides with (pure): after every pair of launches from the minimum on it
 * says regression, pass, improvement, or "another pair".
 *
 * Observations are the pairs' log-ratios in the direction of worse, x_j (positive: the PR is worse), modelled as
 * N(μ, σ²) with σ unknown. Two simple hypotheses: no change (μ = 0) and a loss of twice the limit (μ = μ₁, the log
 * of a 2L change). Wald's sequential probability ratio test between them (Wald 1945, Ann. Math. Statist. 16(2))
 * stops as soon as the likelihood ratio passes K or falls under 1/K; among all tests with the same error rates it
 * needs the fewest observations on average at both hypotheses (Wald and Wolfowitz 1948).
 *
 * σ is not known, so it is integrated out (a scale-mixture likelihood ratio): σ² gets an inverse-gamma prior with
 * ν₀ degrees of freedom at the pair variance the noise model expects, s₀ = 2f² + the launches' own squared
 * standard errors (f the target's `noise-floor`), which gives
 *
 *     ln Λ_n = (ν₀ + n)/2 · ln[(ν₀·s₀ + Σ(x_j − μ₀)²) / (ν₀·s₀ + Σ(x_j − μ₁)²)]
 *
 * with μ₀ = 0 and μ₁ the 2L loss, except that a mean beyond either (a gain, or a loss past 2L) stands in for
 * it: the hypotheses are one-sided, "no loss" and "a loss of 2L or more", and a PR 15 % faster is the more clearly
 * not a 2L loss, where the two points alone would call it as unlikely under both.
 *
 * With ν₀ → 0 this is the invariant (t-) SPRT, whose error rates hold whatever σ is; ν₀ = 2 lets the floor speak
 * for the first pairs as little as two pairs' worth of data would, so two quiet pairs cannot decide alone when
 * the launches are noisier than the floor says. In its plain invariant form (ν₀ → 0, point hypotheses) the ratio is
 * a nonnegative martingale under no change, so by Ville's inequality P(it ever reaches K) ≤ 1/K however often it
 * is looked at (Johari et al., "Always valid inference", arXiv:1512.04922): looking after every pair needs no
 * further correction. The prior and the one-sided centres depart from that form to decide sooner, so the error
 * rates are measured rather than taken from the bound.
 *
 * Thresholds: a regression at 50 : 1, a pass at 30 : 1 — the bound's 2 % and 3.3 % for the plain form, far above
 * what the test really gives with looks after 2, 3, 4, 5 and 6 pairs (test/compare/ab-monte-carlo.test.ts,
 * bench/ab.ts): at launch noise 3 % no change is called a regression 0.4 % of the time and left undecided after six
 * launches per arm under 1 %; a loss of 2L is caught 99.2 % and passed 0.9 %. A pass at 30 : 1 rather than 50 : 1
 * decides more unchanged PRs at the first look, for a few tenths of a point more passed 2L losses.
 */

import { mean } from '../core/stats.js'

/** The likelihood ratio a regression needs (K): in the plain form at most 1 in 50 identical PRs reach it (Ville). */
export const REGRESSION_K = 50
/** The likelihood ratio a pass needs, for no change against a loss of 2L: at most 1 in 30 such losses pass. */
export const PASS_K = 30
/** Degrees of freedom the noise model's expected pair variance counts for (ν₀). */
export const PRIOR_FREEDOM = 2
/**
 * The one-sided normal quantiles of the guarantees: 1 % false regressions (z = 2.326) and 95 % of true losses of
 * the detectable size caught (z = 1.645). The smallest detectable change over n pairs of sd σ is (z_α + z_β)·σ/√n.
 */
export const DETECT_Z = 2.326 + 1.645

export type SequentialCall = 'regression' | 'pass' | 'improvement'

export interface SequentialInput {
  /** Pairs' log-ratios in the direction of worse (positive: the PR is worse). */
  worse: readonly number[]
  /** The log of a loss of twice the limit, in the same direction (> 0). */
  loss: number
  /** The log of a gain of twice the limit (> 0), for improvement. */
  gain: number
  /** The pair variance the noise model expects (s₀). */
  expectedVariance: number
}

export interface SequentialResult {
  /** The decision, or undefined while the likelihood ratio is between 1/K and K. */
  call?: SequentialCall
  /** ln Λ for a loss of twice the limit against no change. */
  lossLlr: number
  /** ln Λ for a gain of twice the limit against no change. */
  gainLlr: number
  /** The pairs' sd used for the smallest detectable change: the larger of the sample's and the expected. */
  sd: number
}

/**
 * ln Λ_n of a loss of at least `mu` against none or a gain (see the header): each side's mean is its hypothesis or,
 * where the pairs' mean lies beyond it (a gain under "none", a loss past `mu`), that mean — so a change far on one
 * side counts for that side, where the two simple hypotheses alone would find both equally unlikely.
 */
export function mixtureLlr(worse: readonly number[], mu: number, expectedVariance: number): number {
  const m = mean(worse)
  const spread = worse.reduce((s, x) => s + (x - m) ** 2, 0) / worse.length
  return llrOf(worse.length, m, spread, mu, expectedVariance)
}

/**
 * The same ratio from the pairs' count n, mean m and spread v (Σ(x − m)²/n): Σ(x − c)² = n·(v + (m − c)²), so it
 * also answers what n pairs of this mean and spread would give (pairsToDecide).
 */
function llrOf(n: number, m: number, spread: number, mu: number, expectedVariance: number): number {
  const prior = PRIOR_FREEDOM * expectedVariance
  const squares = (center: number) => n * (spread + (m - center) ** 2)
  return ((PRIOR_FREEDOM + n) / 2) * Math.log((prior + squares(Math.min(0, m))) / (prior + squares(Math.max(mu, m))))
}

/** Whether a ratio for a 2L loss decides: a regression at REGRESSION_K, no loss at 1/PASS_K. */
function decided(llr: number): 'loss' | 'none' | undefined {
  return llr >= Math.log(REGRESSION_K) ? 'loss' : llr <= -Math.log(PASS_K) ? 'none' : undefined
}

/** The test after the pairs so far (see the header). */
export function sequentialTest(input: SequentialInput): SequentialResult {
  const { worse, loss, gain, expectedVariance } = input
  if (!worse.length) throw new RangeError('sequential test: no pairs')
  if (!(loss > 0 && gain > 0)) throw new RangeError('sequential test: the limit must be above 0')
  const lossLlr = mixtureLlr(worse, loss, expectedVariance)
  const gainLlr = mixtureLlr(
    worse.map((x) => -x),
    gain,
    expectedVariance,
  )
  const n = worse.length
  const m = mean(worse)
  const s2 = n >= 2 ? worse.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1) : 0
  const sd = Math.sqrt(Math.max(s2, expectedVariance))
  const side = decided(lossLlr)
  const call: SequentialCall | undefined =
    side === 'loss'
      ? 'regression'
      : side === 'none'
        ? gainLlr >= Math.log(REGRESSION_K)
          ? 'improvement'
          : 'pass'
        : undefined
  return { ...(call && { call }), lossLlr, gainLlr, sd }
}

/**
 * Pairs in all after which the test would decide if the pairs went on as they are (their mean and spread held),
 * at most `cap`; `cap` when it would not (a change at the midpoint between the hypotheses never decides).
 */
export function pairsToDecide(input: SequentialInput, cap: number): number {
  const { worse, loss, expectedVariance } = input
  const m = mean(worse)
  const spread = worse.reduce((s, x) => s + (x - m) ** 2, 0) / worse.length
  for (let k = worse.length + 1; k < cap; k++) if (decided(llrOf(k, m, spread, loss, expectedVariance))) return k
  return cap
}

/** The smallest change (log scale) n pairs of this sd detect with the guarantees' error rates. */
export function detectable(sd: number, pairs: number): number {
  return (DETECT_Z * sd) / Math.sqrt(pairs)
}

/**
 * A loss and a gain of twice the limit on the log scale, both positive, for a metric that is better higher (a
 * speed: its loss is a drop) or lower (a latency). A drop of 100 % or more is held at 99 %, where the log ends.
 */
export function twiceTheLimitLogs(limit: number, higherIsBetter: boolean): { loss: number; gain: number } {
  const twice = 2 * limit
  const log = (change: number) => Math.abs(Math.log(Math.max(1 + change, 0.01)))
  return higherIsBetter ? { loss: log(-twice), gain: log(twice) } : { loss: log(twice), gain: log(-twice) }
}
