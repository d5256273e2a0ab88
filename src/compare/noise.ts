/**
 * The noise model: how far apart the current steady value and the reference can land by chance. Every figure is
 * relative to the reference value, so one rule serves tok/s and milliseconds. A run's steady value is
 *
 *     level × (1 + launch offset + mean of its k warm rounds' errors)
 *
 * so it varies by σ_R² + σ_w²/k: a launch-to-launch part that more rounds cannot average away, and a
 * round-to-round part that they can. The estimators are in spread.ts.
 *
 * - Round-to-round variance σ_w². The current side counts at face value — its own odd round is visible and
 *   really moves its mean — pooled by degrees of freedom with the history's runs, where a run whose rounds
 *   disagree far more than the others' do (a throttled round) is set aside: an odd round in some main run says
 *   nothing about this one. Rounds of one launch are one group (a re-measurement on the same server shares its
 *   offset). With no degree of freedom at all (one warm round everywhere) the noise floor f stands in for σ_w:
 *   one warm round per side is never "noise unknown".
 * - Rounds paired on the same prompts. Each cell sends the same prompts in the same rounds in every run
 *   (bench/prompts/indices.ts), so what a round's prompts do to its figure — a drafter accepting more of code than
 *   of prose, two- to threefold — is the same in this run's mean and in every stored run's: it cancels in the
 *   comparison, and counting it as round-to-round noise would widen the band by the text, not by chance. Where this
 *   run's steady rounds and the newest stored run's pair by their prompt digests (`paired`: the squares of
 *   d = ln(this round / its stored partner) about their mean, halved for one side's share, with their degrees of
 *   freedom), that stands in for σ_w² on both sides. Two steady rounds a side give one degree of freedom, an estimate
 *   that comes out far too small often enough to matter, so it is weighed with the noise floor f² as PAIRED_PRIOR
 *   degrees of freedom (the sequential test's prior, sequential.ts): σ_w² = (squares/2 + 2f²) / (freedom + 2).
 * - Launch-to-launch variance σ_R² = max(σ_d² − σ_c²/k̄, 0): σ_d² is the variance of main's steady values within
 *   level segments (odd runs set aside), σ_c² the round-to-round variance with odd runs set aside on both sides,
 *   k̄ the reference runs' rounds. While the history gives fewer than SPREAD_FREEDOM degrees of freedom (a
 *   ten-run segment), σ_R is at least f (`noise-floor`, default 1.5 %): a baseline file or a short history
 *   cannot show the restart-to-restart spread, so it is assumed, and a lucky quiet short history cannot narrow
 *   the band.
 * - Current side: L launches (1; one per re-measurement when a confirmation re-launched the engine) and k pooled
 *   warm rounds: σ_R²/L + σ_w²/k.
 * - Reference side: the median of n runs, c·(σ_R² + σ_c²/k̄)/n with c = π/2 for n ≥ 3 (the median's large-sample
 *   variance; for normal samples the exact factor is 1.35, 1.19, 1.43 at n = 3, 4, 5, so π/2 is on the safe
 *   side) and c = 1 for n ≤ 2 (the median of two is their mean). An odd run moves a median by one rank only,
 *   hence σ_c.
 * - Band h = Z·√(current + reference), Z = 2.5: alone it would call 0.6 % of no-change comparisons worse by
 *   chance (one-sided normal tail), before a regression also has to pass the limit (max-regression, min-delta)
 *   and a pooled re-measurement. A five-run history's estimates are uncertain themselves; the seeded Monte-Carlo
 *   test (test/compare/monte-carlo.test.ts) measures the rule with them.
 *
 * - A same-box A/B's launches (compare/ab-cell.ts) vary as main's launches do, odd ones included: a box whose
 *   launches settle now and then in a slower regime (vLLM #39903) shows it as runs the band above sets aside,
 *   since one such run in main says nothing about this run's value, while the A/B's next launch may be one. So
 *   the launch spread handed to the A/B (`launchSpread`) keeps every run, once the history has SPREAD_FREEDOM
 *   degrees of freedom.
 * - A launch figure (startup) is one value a launch with no rounds behind it: σ_w² = σ_c² = 0, and σ_R² is the
 *   spread of main's values (at least f while the history is short) — the launch-to-launch part is all there is.
 *
 * Rounds: only σ_w²/k shrinks with more rounds, so the band falls under a target after m more warm rounds when
 * σ_w²/(k+m) ≤ (target/Z)² − σ_R²/L − reference. When the right side is not positive no number of rounds helps:
 * a measured launch-to-launch part needs a quieter machine; an assumed one, or the reference part, needs more
 * default-branch runs.
 */
import { guardedWithin, runSpread, withinSquares } from './spread.js'

export const NOISE_Z = 2.5

/** Launch-to-launch spread assumed while the history is short (`noise-floor`). */
export const NOISE_FLOOR = 0.015

/** Degrees of freedom the noise floor counts for beside rounds paired on the same prompts. */
export const PAIRED_PRIOR = 2

/** Degrees of freedom of the history's run-to-run spread from which it replaces the floor (a ten-run segment). */
export const SPREAD_FREEDOM = 9

/** The variance components of one comparison, all relative to the reference value. */
export interface NoiseModel {
  /** Round-to-round variance σ_w². */
  within: number
  /** Launch-to-launch variance σ_R². */
  restart: number
  /** True when σ_R² is the assumed floor rather than measured. */
  assumed: boolean
  /**
   * Where the history measures it (SPREAD_FREEDOM): the launch-to-launch sd with no run set aside, √(σ_d² − σ_c²/k̄)
   * over every run — what a same-box A/B's launches can do, slow launches included (see the header).
   */
  launchSpread?: number
  /** Variance of the reference value. */
  reference: number
  /** Warm rounds on the current side. */
  rounds: number
  /** Launches the current rounds come from. */
  launches: number
}

/** Squares of paired rounds' log-ratios about their mean, one side's share (halved), and their degrees of freedom. */
export interface PairedSquares {
  squares: number
  freedom: number
}

export interface NoiseInput {
  /** Current side: steady rounds grouped by launch. */
  current: readonly (readonly number[])[]
  launches: number
  /** Steady values of the history's window runs (newest last), their rounds, and where level segments start. */
  steady: readonly number[]
  rounds: readonly (readonly number[])[]
  breaks: readonly number[]
  /** The reference value, the runs it is the median of, and their mean round count. */
  value: number
  runs: number
  runRounds: number
  noiseFloor: number
  /** A figure of the launch (startup): no rounds behind it, so all of its noise is launch to launch. */
  perLaunch?: boolean
  /** This run's rounds paired with the stored run's on the same prompts (see the header; paired-rounds.ts). */
  paired?: PairedSquares
}

export function noiseModel(input: NoiseInput): NoiseModel {
  const history = guardedWithin(input.rounds)
  const current = withinSquares(input.current)
  const freedom = current.freedom + history.freedom
  const pooled = freedom > 0 ? (current.squares + history.freedom * history.variance) / freedom : input.noiseFloor ** 2
  const paired =
    input.paired &&
    (input.paired.squares + PAIRED_PRIOR * input.noiseFloor ** 2) / (input.paired.freedom + PAIRED_PRIOR)
  const within = input.perLaunch ? 0 : (paired ?? pooled)
  const guarded = guardedWithin([...input.current, ...input.rounds])
  // σ_c²/k̄ in the module header.
  const core = input.perLaunch
    ? 0
    : (paired ?? (guarded.freedom > 0 ? guarded.variance : within)) / Math.max(input.runRounds, 1)
  const spread = runSpread(input.steady, input.value, input.breaks)
  let restart = Math.max(spread.variance - core, 0)
  const assumed = spread.freedom < SPREAD_FREEDOM && restart < input.noiseFloor ** 2
  if (assumed) restart = input.noiseFloor ** 2
  const every = runSpread(input.steady, input.value, input.breaks, true)
  const launchSpread = every.freedom >= SPREAD_FREEDOM ? Math.sqrt(Math.max(every.variance - core, 0)) : undefined
  const n = input.runs
  const reference = ((n >= 3 ? Math.PI / 2 : 1) * (restart + core)) / n
  const rounds = input.current.reduce((k, run) => k + run.length, 0)
  const model = { within, restart, assumed, reference, rounds: Math.max(rounds, 1), launches: input.launches }
  return launchSpread === undefined ? model : { ...model, launchSpread }
}

/** Relative half-width of the band. */
export function noiseBand(model: NoiseModel): number {
  const current = model.restart / model.launches + model.within / model.rounds
  return NOISE_Z * Math.sqrt(current + model.reference)
}

/** Warm rounds more after which the band is at most `target`, or what keeps it wider whatever the rounds. */
export function roundsFor(model: NoiseModel, target: number): number | 'quieter-box' | 'baseline' {
  const launch = model.restart / model.launches
  const room = (target / NOISE_Z) ** 2 - launch - model.reference
  if (room <= 0) return launch >= model.reference && !model.assumed ? 'quieter-box' : 'baseline'
  return Math.max(1, Math.ceil(model.within / room - model.rounds))
}
