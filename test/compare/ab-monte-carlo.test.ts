/**
 * Seeded Monte-Carlo test of the shipped A/B rule (src/compare/ab.ts), run the way the pipeline runs it: launches in
 * `abOrder(2)` (the default `ab-launches`), each a cell of three rounds with the first discarded, judged by
 * `abCellVerdict` with the built-in decode gate (max-regression 5 %) and the default noise floor f = 1.5 %.
 *
 * The box: launch i measures 50 tok/s × box × e^(g·i) × (1 + effect on the PR arm) × ε_i, with ε_i lognormal of
 * cv 3 % (each launch's regime, twice the spread the floor assumes: a noisy box), g the drift per launch (−1 %, a
 * box warming up; −3 %, one warming up fast) and each round 1 % normal noise about the launch's level.
 *
 * Expected rates, derived. Log-values are normal, so over the n = 2 pairs the mean log-ratio m and the pairs'
 * difference D = r1 − r2 are independent: m ~ N(ln(1 + effect), σ_L²) and D ~ N(2g, 4σ_L²), σ_L² = ln(1 + 0.03²) +
 * 0.01²/2 a launch's log-variance (its regime and the mean of its two warm rounds); ABBA puts the drift into the
 * pairs as +g and −g, so it leaves m alone and D, hence s² = D²/2, not. The rule then decides on m through
 * h = z·√(max(s², σ0²)/2), σ0² = 2f² + 0.01² (each launch's se² at its mean, 0.01²/2), so each status's rate is a
 * one-dimensional integral over D (`expected`). Measured rates must lie within 4 binomial standard errors of those,
 * plus half a point for setting se² at its mean; the mean log change within 4 standard errors (σ_L/√T) of the
 * effect. With h ≥ z·σ0/√2 = 3.25 % whatever s, the bounds are:
 *
 * - identical PRs: false regression needs worse > 8.25 %, m < ln 0.9175: Φ(−0.086/σ_L) = 0.26 % at most;
 * - a −10 % PR (exactly 2L): regression at least when the loss reads past 2L, half the trials; a pass needs it to
 *   read under L, m > ln 0.95: Φ(−1.76) = 3.9 % at most — not never: two pairs on a box this noisy put a 2L loss
 *   under L that often, and h cannot tell it from a real small change;
 * - a +10 % PR on a box 8 % slower (both arms see it): regression needs m 5.9 σ_L below its mean: never.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { abCellVerdict, abOrder, AB_Z } from '../../src/compare/index.js'
import { NOISE_FLOOR } from '../../src/compare/noise.js'
import type { GateConfig } from '../../src/core/plan.js'
import { createRng, jitterFactor, normal } from '../../src/sim/rng.js'
import { simCell } from '../helpers/sim-launch.js'

const TRIALS = 2000
const LIMIT = 0.05
const GATE: GateConfig = { decode: { maxRegression: LIMIT, stat: 'mean' } }
const LAUNCH_CV = 0.03
const ROUND_CV = 0.01
const WARM_ROUNDS = 2
const SIGMA_L = Math.sqrt(Math.log(1 + LAUNCH_CV ** 2) + ROUND_CV ** 2 / WARM_ROUNDS)
const SIGMA0_SQ = 2 * NOISE_FLOOR ** 2 + 2 * (ROUND_CV ** 2 / WARM_ROUNDS)
const STATUSES = ['regression', 'inconclusive', 'pass', 'improvement'] as const
type Status = (typeof STATUSES)[number]
type Rates = Record<Status, number>

interface Case {
  name: string
  effect: number
  drift: number
  box?: number
  /** Derived bounds (see the header). */
  regressionAtMost?: number
  regressionAtLeast?: number
  passAtMost?: number
}

function simulate(c: Case, seed: number): { rates: Rates; meanLog: number } {
  const rng = createRng(seed)
  const counts: Rates = { regression: 0, inconclusive: 0, pass: 0, improvement: 0 }
  let logs = 0
  for (let t = 0; t < TRIALS; t++) {
    const launches = abOrder(2).map((arm, i) => {
      const level = 50 * (c.box ?? 1) * Math.exp(c.drift * i) * (arm === 'pr' ? 1 + c.effect : 1)
      const at = { decode: level * jitterFactor(rng, LAUNCH_CV), ttft: 400, draw: () => normal(rng), uniform: rng }
      return { arm, cell: simCell('sim/ab', { ...at, noise: { cv: ROUND_CV } }, WARM_ROUNDS + 1, 1) }
    })
    const v = abCellVerdict(launches, GATE).metrics.decode!
    counts[v.status]++
    logs += Math.log1p(v.delta!)
  }
  const rates = Object.fromEntries(STATUSES.map((s) => [s, counts[s] / TRIALS])) as Rates
  return { rates, meanLog: logs / TRIALS }
}

/** The rates the model predicts for two pairs (see the header): an integral over D of the rule's interval of m. */
function expected(c: Case): Rates {
  const mu = Math.log1p(c.effect)
  const within = (lo: number, hi: number) => phi((hi - mu) / SIGMA_L) - phi((lo - mu) / SIGMA_L)
  const rates: Rates = { regression: 0, inconclusive: 0, pass: 0, improvement: 0 }
  const steps = 4000
  const sd = 2 * SIGMA_L
  const width = (16 * sd) / steps
  for (let k = 0; k < steps; k++) {
    const d = 2 * c.drift - 8 * sd + (k + 0.5) * width
    const weight = (Math.exp(-(((d - 2 * c.drift) / sd) ** 2) / 2) / (sd * Math.sqrt(2 * Math.PI))) * width
    const h = AB_Z * Math.sqrt(Math.max(d ** 2 / 2, SIGMA0_SQ) / 2)
    const regression = within(-Infinity, Math.log(1 - Math.min(LIMIT + h, 2 * LIMIT)))
    const improvement = within(Math.log(1 + LIMIT + h), Infinity)
    const pass = within(Math.log(1 - Math.min(LIMIT, 2 * LIMIT - h)), Math.log(1 + LIMIT + h))
    rates.regression += weight * regression
    rates.improvement += weight * improvement
    rates.pass += weight * pass
    rates.inconclusive += weight * (1 - regression - improvement - pass)
  }
  return rates
}

/** Standard normal CDF (Abramowitz & Stegun 7.1.26, error under 1.5e-7). */
function phi(x: number): number {
  if (x === Infinity) return 1
  if (x === -Infinity) return 0
  const z = Math.abs(x) / Math.SQRT2
  const t = 1 / (1 + 0.3275911 * z)
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
  const erf = 1 - poly * Math.exp(-z * z)
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2
}

const cases: Case[] = [
  { name: 'identical, drift −1 %/launch', effect: 0, drift: -0.01, regressionAtMost: 0.0026 },
  { name: 'PR −10 %, drift −1 %/launch', effect: -0.1, drift: -0.01, regressionAtLeast: 0.5, passAtMost: 0.039 },
  { name: 'PR +10 %, box 8 % slower', effect: 0.1, drift: -0.01, box: 0.92, regressionAtMost: 0 },
  { name: 'identical, drift −3 %/launch', effect: 0, drift: -0.03, regressionAtMost: 0.0026 },
  { name: 'PR −10 %, drift −3 %/launch', effect: -0.1, drift: -0.03, regressionAtLeast: 0.5, passAtMost: 0.039 },
]

const table: string[] = []
const pct = (x: number) => `${(x * 100).toFixed(2)}%`.padStart(8)

afterAll(() => {
  const head = `${'A/B scenario'.padEnd(30)}${STATUSES.map((s) => s.padStart(21)).join('')}  (measured / expected)`
  console.log([head, ...table].join('\n'))
})

describe(`the A/B rule under launch noise and drift (${TRIALS} trials a case, seeded)`, () => {
  it.each(cases.map((c, i) => ({ ...c, seed: 301 + i })))('$name', (c) => {
    const { rates, meanLog } = simulate(c, c.seed)
    const model = expected(c)
    table.push(
      `${c.name.padEnd(30)}${STATUSES.map((s) => `${pct(rates[s])} / ${pct(model[s])}`.padStart(21)).join('')}`,
    )
    for (const s of STATUSES) {
      const se = Math.sqrt(Math.max(model[s] * (1 - model[s]), 1 / TRIALS) / TRIALS)
      expect(Math.abs(rates[s] - model[s]), `${s} rate: |measured − expected|`).toBeLessThanOrEqual(4 * se + 0.005)
    }
    // Drift cancels: the change measured is the arms' own, unbiased.
    expect(Math.abs(meanLog - Math.log1p(c.effect))).toBeLessThanOrEqual((4 * SIGMA_L) / Math.sqrt(TRIALS))
    // The derived bounds, each with 4 binomial standard errors of the bound itself (0 is a bound that holds exactly).
    const slack = (p: number) => 4 * Math.sqrt((p * (1 - p)) / TRIALS)
    if (c.regressionAtMost !== undefined)
      expect(rates.regression).toBeLessThanOrEqual(c.regressionAtMost + slack(c.regressionAtMost))
    if (c.regressionAtLeast !== undefined)
      expect(rates.regression).toBeGreaterThanOrEqual(c.regressionAtLeast - slack(c.regressionAtLeast))
    if (c.passAtMost !== undefined) expect(rates.pass).toBeLessThanOrEqual(c.passAtMost + slack(c.passAtMost))
  })
})
