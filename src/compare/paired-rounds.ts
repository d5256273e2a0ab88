/**
 * Speculative decoding's acceptance, paired round by round (pure). At temperature 0 the drafter and the target model
 * agree on the same tokens for the same prompt, so acceptance is a property of the text, not noise: llama-server with
 * a draft model gave the same acceptance on the same prompts in three runs, while between prose and code it differs
 * two- to threefold. Each cell sends the same prompts in the same order in every run (bench/prompts/indices.ts), and a
 * round records a digest of the prompts it sent (`rounds[].prompts`). Two cells' steady rounds with the same digest
 * are paired: d = ln(acceptance PR / acceptance base) compares the two builds on the very same text, and the text's
 * own variation — most of acceptance's spread from round to round and run to run — cancels.
 *
 * A pair of cells (two launches of an A/B, or this run and the stored baseline's newest run) gives the mean of its
 * rounds' d, with the squared standard error var(d) / R its noise model expects, plus ACCEPT_FLOOR²: acceptance
 * that is not exactly repeatable (batch-dependent numerics flip a token now and then) leaves a residue, and a floor
 * keeps two identical rounds from claiming none. The pairs then go through the same sequential test as every
 * metric of an A/B (ab.ts `pairedVerdict`). Cells whose rounds sent different prompts are not paired: the factor is
 * then judged from the cells' own figures as before.
 */
import type { GateStat, GatedMetric } from '../core/metrics.js'
import { readCellMetric, readMetric } from '../core/metrics.js'
import type { CellResult } from '../core/results.js'
import { mean } from '../core/stats.js'
import type { GateMetricConfig } from '../core/plan.js'
import type { MetricVerdict } from '../core/results.js'
import { pairedVerdict, type PairedRatios } from './ab.js'
import type { PairedSquares } from './noise.js'

/** Relative noise of acceptance on the same prompts that a pair is never assumed to be below (0.5 %). */
export const ACCEPT_FLOOR = 0.005

/** ln(PR / base) of `metric` over the steady rounds that sent the same prompts in both cells. */
export function roundRatios(base: CellResult, pr: CellResult, metric: GatedMetric, stat: GateStat = 'mean'): number[] {
  const byPrompts = new Map<string, number>()
  for (const r of base.rounds) {
    const v = r.steady && r.prompts ? readMetric(r.metrics, metric, stat) : undefined
    if (v !== undefined && v > 0) byPrompts.set(r.prompts!, v)
  }
  const ratios: number[] = []
  for (const r of pr.rounds) {
    const v = r.steady && r.prompts ? readMetric(r.metrics, metric, stat) : undefined
    const b = r.prompts === undefined ? undefined : byPrompts.get(r.prompts)
    if (v !== undefined && v > 0 && b !== undefined) ratios.push(Math.log(v / b))
  }
  return ratios
}

/**
 * The squared standard error of a launch pair's mean log-ratio from its rounds paired on the same prompts — var(d) / R
 * — where every steady round of both launches has its partner (R ≥ 2); undefined otherwise. What the prompts
 * themselves do to a round (a drafter's acceptance on code against prose) is then in neither arm's error, where
 * each launch's own round-to-round spread would count it twice.
 */
export function pairedRoundVariance(
  base: CellResult,
  pr: CellResult,
  metric: GatedMetric,
  stat: GateStat,
): number | undefined {
  const d = fullyPaired(base, pr, metric, stat)
  return d && d.length >= 2 ? meanSquaredError(d) : undefined
}

/**
 * One side's share of the squares of cells' rounds paired with a stored cell's on the same prompts — Σ(d − d̄)² / 2 —
 * and their degrees of freedom, where every steady round of each cell and of the stored one has its partner
 * (noise.ts, "Rounds paired on the same prompts"); undefined without a degree of freedom.
 */
export function pairedWithin(
  cells: readonly CellResult[],
  stored: CellResult | undefined,
  metric: GatedMetric,
  stat: GateStat,
): PairedSquares | undefined {
  if (!stored) return undefined
  let squares = 0
  let freedom = 0
  for (const cell of cells) {
    const d = fullyPaired(stored, cell, metric, stat)
    if (!d) return undefined
    squares += squaresAboutMean(d)
    freedom += d.length - 1
  }
  return freedom > 0 ? { squares: squares / 2, freedom } : undefined
}

/** `roundRatios` where every steady round of both cells has its partner (at least one); undefined otherwise. */
function fullyPaired(base: CellResult, pr: CellResult, metric: GatedMetric, stat: GateStat): number[] | undefined {
  const d = roundRatios(base, pr, metric, stat)
  const steady = (c: CellResult) => c.rounds.filter((r) => r.steady).length
  return d.length && d.length === steady(base) && d.length === steady(pr) ? d : undefined
}

/** Σ(x − x̄)² of `d`. */
function squaresAboutMean(d: readonly number[]): number {
  const m = mean(d)
  return d.reduce((s, x) => s + (x - m) ** 2, 0)
}

/** The squared standard error of the mean of `d`: its sample variance over its count; 0 below two values. */
function meanSquaredError(d: readonly number[]): number {
  return d.length < 2 ? 0 : squaresAboutMean(d) / (d.length - 1) / d.length
}

/**
 * `metric` of pairs of cells (base, PR), paired round by round; undefined when a pair has no round in common
 * (its prompts differ) or a cell lacks the figure.
 */
export function pairedRounds(
  pairs: readonly [CellResult, CellResult][],
  metric: GatedMetric,
  /** Where the pairs come from, for the reason (`A/B on this box`). */
  context: string,
): PairedRatios | undefined {
  const ratios: number[] = []
  const expected: number[] = []
  let rounds = 0
  for (const [base, pr] of pairs) {
    const d = roundRatios(base, pr, metric)
    if (!d.length) return undefined
    ratios.push(mean(d))
    expected.push(meanSquaredError(d) + ACCEPT_FLOOR ** 2)
    rounds += d.length
  }
  const geo = (cells: CellResult[]) => {
    const values = cells.map((c) => readCellMetric(c, metric, 'mean'))
    if (values.some((v) => !(v !== undefined && v > 0))) return undefined
    return Math.exp(mean(values.map((v) => Math.log(v!))))
  }
  const base = geo(pairs.map((p) => p[0]))
  const pr = geo(pairs.map((p) => p[1]))
  if (base === undefined || pr === undefined || !ratios.length) return undefined
  const said = `${context}, paired on the same prompts: ${rounds} round${rounds === 1 ? '' : 's'} in ${pairs.length} pair${pairs.length === 1 ? '' : 's'}`
  return { ratios, expected: mean(expected), base, pr, said }
}

/**
 * Acceptance of this run's measurements against the stored baseline's newest run of the cell, paired round by round,
 * by the A/B's sequential rule at its last look (no launch may follow); undefined when there is no stored run or the
 * rounds sent other prompts (a baseline from before rounds recorded them).
 */
export function storedAcceptance(
  cells: readonly CellResult[],
  stored: CellResult | undefined,
  config: GateMetricConfig,
): MetricVerdict | undefined {
  if (!stored) return undefined
  const pairs = cells.map((c): [CellResult, CellResult] => [stored, c])
  const paired = pairedRounds(pairs, 'accept-length', 'against the stored baseline')
  return paired && pairedVerdict({ metric: 'accept-length', config, pairs: paired, final: true })
}
