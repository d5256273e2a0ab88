/**
 * Seeded Monte-Carlo test of a speculative-decoding cell against a stored baseline (judge.ts, noise.ts, paired-rounds.ts):
 * this run and the stored run send the same prompts in the same rounds (bench/prompts/indices.ts), and where their
 * rounds pair by digest the round-to-round noise is taken from the pairs, not from the text's own spread.
 *
 * The cell: acceptance length 3.0, step time 60 ms, decode = 1000 × acceptance ÷ step; three rounds, the first
 * discarded; the baseline one stored run (a baseline file). Round r's acceptance is 3.0 × t_r, t_r lognormal of cv
 * 8 % drawn once a trial (the text: 8 % between rounds of one stratum) times 0.2 % residue; step time carries each
 * launch's regime at the noise floor (1.5 %, the premise the stored path's band is built on) and 1 % round noise.
 *
 * Bounds at the built-in decode limit 5 %: identical code decided (pass) in at least 90 %, a regression at most 1 %;
 * decode 10 % slower (acceptance × 0.9: twice the limit) a regression at least 95 %. The same cells without prompt
 * digests count the text's 8 % as round noise: the band then cannot rule out twice the limit, and identical code is
 * undecided in most trials — a judge that stopped pairing fails the first case.
 */
import { describe, expect, it } from 'vitest'
import { judgeCell } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { createRng, jitterFactor, normal } from '../../src/sim/rng.js'
import { cell, resultsFile, round } from '../helpers/builders.js'

const TRIALS = 1000
const GATE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' } }
const NOISE = { text: 0.08, residue: 0.002, launch: 0.015, round: 0.01 }

function launchCell(rng: () => number, text: number[], accept: number, paired: boolean): CellResult {
  const regime = jitterFactor(rng, NOISE.launch)
  const rounds = text.map((t, r) => {
    const a = 3 * t * accept * (1 + NOISE.residue * normal(rng))
    const step = 60 * regime * (1 + NOISE.round * normal(rng))
    const figures = round(r, r >= 1, { decode: (1000 * a) / step, ttft: 400, accept: a, step })
    return paired ? { ...figures, prompts: r.toString(16).padStart(8, '0') } : figures
  })
  return cell('mtp/chat', rounds)
}

function shares(accept: number, paired: boolean, seed: number) {
  const rng = createRng(seed)
  const counts: Record<string, number> = {}
  for (let t = 0; t < TRIALS; t++) {
    const text = Array.from({ length: 3 }, () => jitterFactor(rng, NOISE.text))
    const stored = launchCell(rng, text, 1, paired)
    const now = launchCell(rng, text, accept, paired)
    const view = { results: resultsFile([stored]), history: [] }
    const status = judgeCell(now, view, GATE).metrics.decode!.status
    counts[status] = (counts[status] ?? 0) + 1
  }
  const share = (s: string) => (counts[s] ?? 0) / TRIALS
  return { pass: share('pass'), regression: share('regression'), inconclusive: share('inconclusive') }
}

describe('a drafting cell against its stored run, rounds paired on the same prompts', () => {
  it('decides identical code: pass ≥ 90 %, regression ≤ 1 %', () => {
    const s = shares(1, true, 11)
    expect(s.pass).toBeGreaterThanOrEqual(0.9)
    expect(s.regression).toBeLessThanOrEqual(0.01)
  })

  it('catches decode 10 % slower from acceptance (twice the limit) ≥ 95 %', () => {
    expect(shares(0.9, true, 12).regression).toBeGreaterThanOrEqual(0.95)
  })

  it('without prompt digests the text counts as noise: identical code mostly undecided', () => {
    const s = shares(1, false, 13)
    expect(s.inconclusive).toBeGreaterThan(0.5)
    expect(s.pass).toBeLessThan(0.9)
  })
})
