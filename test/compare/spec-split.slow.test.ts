/**
 * Seeded Monte-Carlo proof of the spec-decode split (compare/spec-split.ts), run the way the pipeline runs a cell:
 * a five-run history → reference → noise band → verdict → more warm rounds while `moreRounds` asks (max-rounds 6)
 * → one confirmation on the same launch (`confirmCell`).
 *
 * A spec-decode cell: acceptance length 3.0 tokens a verify step, step time 60 ms, so decode is 50 tok/s. Each
 * round's acceptance varies by 8 % (vllm-project/vllm #53436 measured 9.9–19.7 % run to run from acceptance
 * alone), its step time by 1 %, and each launch's step time by 1 % more; the round's decode is 1000 × acceptance ÷
 * step, as the gate records it (bench/rounds/rounds.ts). Rounds 4, discard 1. The gate: decode max-regression 5 %.
 *
 * Each case runs twice on the same seed: with the factors recorded (the shipped rule) and without them (decode
 * alone, as for an engine that reports no drafts). A loss counts as caught when decode fails; a false alarm is
 * a failure of an identical cell. 2,000 trials a case: a rate's binomial standard error is at most 0.22 points
 * at 1 % and 0.49 at 95 %.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { confirmCell, judgeCell, moreRounds, needsConfirmation, type BaselineView } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult, CellVerdict } from '../../src/core/results.js'
import { cell, flatCell, historyEntry, resultsFile, round } from '../helpers/builders.js'
import { normalSource } from '../helpers/sim-launch.js'

const TRIALS = 2000
const MAX_ROUNDS = 6
const ID = 'mtp/chat-1k'
const GATE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' } }
const KEYS = ['decode_tps.mean', 'accept_length', 'step_ms']
const LEVEL = { accept: 3, step: 60 }
const NOISE = { accept: 0.08, step: 0.01, launch: 0.01 }
const ROUNDS = 4
const DISCARD = 1
const HISTORY = 5

interface Effect {
  name: string
  /** Factors of the PR's acceptance length and step time. */
  accept: number
  step: number
}
const SAME: Effect = { name: 'identical', accept: 1, step: 1 }
const STEP_10: Effect = { name: 'step time +10 %', accept: 1, step: 1.1 }
const ACCEPT_15: Effect = { name: 'acceptance −15 %', accept: 0.85, step: 1 }

interface Launch {
  accept: number
  step: number
  draw: () => number
  /** Record the factors in the rounds (the shipped rule sees them). */
  split: boolean
}

function specRound(at: Launch, index: number, steady: boolean) {
  const accept = at.accept * (1 + NOISE.accept * at.draw())
  const step = at.step * (1 + NOISE.step * at.draw())
  const factors = at.split ? { accept, step } : {}
  return round(index, steady, { decode: (1000 * accept) / step, ttft: 400, ...factors })
}

function specCell(at: Launch, rounds = ROUNDS, discard = DISCARD): CellResult {
  return cell(
    ID,
    Array.from({ length: rounds }, (_, i) => specRound(at, i, i >= discard)),
  )
}

function launch(effect: Effect, draw: () => number, split: boolean): Launch {
  return {
    accept: LEVEL.accept * effect.accept,
    step: LEVEL.step * effect.step * (1 + NOISE.launch * draw()),
    draw,
    split,
  }
}

/** One PR cell: measure, more rounds while asked, judge, confirm once on the same launch. */
function trial(effect: Effect, draw: () => number, split: boolean): CellVerdict {
  const runs = Array.from({ length: HISTORY }, () => specCell(launch(SAME, draw, split)))
  const view: BaselineView = { history: runs.map((r, i) => historyEntry([r], KEYS, `${i}`.padStart(40, '0'))) }
  const at = launch(effect, draw, split)
  let pr = specCell(at)
  for (let more = moreRounds(pr, view, GATE, { maxRounds: MAX_ROUNDS }); more > 0;) {
    const n = pr.rounds.length
    pr = cell(ID, [...pr.rounds, ...Array.from({ length: more }, (_, i) => specRound(at, n + i, true))])
    more = moreRounds(pr, view, GATE, { maxRounds: MAX_ROUNDS })
  }
  pr.verdict = judgeCell(pr, view, GATE)
  if (!needsConfirmation(pr.verdict)) return pr.verdict
  return confirmCell(pr, [specCell(at)], view, GATE, {})
}

interface Rates {
  regression: number
  inconclusive: number
  /** Regressions decided by a factor while decode's own band could not. */
  byFactor: number
  /** Share of the regressions whose line names the factor that moved (`acceptance length −…`, `step time +…`). */
  attributed: number
}

function simulate(effect: Effect, seed: number, split: boolean): Rates {
  const draw = normalSource(seed)
  const rates: Rates = { regression: 0, inconclusive: 0, byFactor: 0, attributed: 0 }
  const moved = effect.step > 1 ? 'step time +' : 'acceptance length −'
  let named = 0
  for (let t = 0; t < TRIALS; t++) {
    const v = trial(effect, draw, split)
    const decode = v.metrics.decode
    if (v.status === 'inconclusive') rates.inconclusive += 1 / TRIALS
    if (decode?.status !== 'regression') continue
    rates.regression += 1 / TRIALS
    if (decode.reason.includes('its own noise')) rates.byFactor += 1 / TRIALS
    if (decode.reason.includes(moved)) named++
  }
  rates.attributed = rates.regression > 0 ? named / Math.round(rates.regression * TRIALS) : 0
  return rates
}

const table: string[] = []
const pct = (x: number) => `${(x * 100).toFixed(2)}%`.padStart(7)
afterAll(() => {
  console.log(['effect             rule   regression  inconclusive  by a factor', ...table].join('\n'))
})

function run(effect: Effect, seed: number, split: boolean): Rates {
  const rates = simulate(effect, seed, split)
  table.push(
    `${effect.name.padEnd(19)}${(split ? 'split' : 'decode').padEnd(7)}${pct(rates.regression)}     ${pct(rates.inconclusive)}       ${pct(rates.byFactor)}`,
  )
  return rates
}

describe(`the spec-decode split under wide acceptance noise (${TRIALS} trials a case, seeded)`, () => {
  it('raises no more false alarms than decode alone on identical code', () => {
    const split = run(SAME, 501, true)
    const alone = run(SAME, 501, false)
    expect(split.regression).toBeLessThanOrEqual(0.01)
    expect(split.regression).toBeLessThanOrEqual(alone.regression + 0.005)
  })

  it('catches a 10 % slower verify step that decode alone mostly cannot tell', () => {
    const split = run(STEP_10, 502, true)
    const alone = run(STEP_10, 502, false)
    expect(split.regression).toBeGreaterThanOrEqual(0.95)
    expect(alone.regression).toBeLessThan(split.regression - 0.2)
    expect(split.byFactor).toBeGreaterThan(0.2)
    expect(split.attributed).toBeGreaterThanOrEqual(0.99)
  })

  it('attributes a 15 % lower acceptance at an unchanged step, as often as decode alone catches it', () => {
    // Acceptance is as noisy as decode here (it is decode's noise), so the split adds attribution, not power.
    const split = run(ACCEPT_15, 503, true)
    const alone = run(ACCEPT_15, 503, false)
    expect(split.regression).toBeGreaterThanOrEqual(0.8)
    expect(split.regression).toBeGreaterThanOrEqual(alone.regression - 0.02)
    expect(split.attributed).toBeGreaterThanOrEqual(0.99)
  })
})

describe('the split of one verdict (flat rounds: only the noise floor)', () => {
  const base: BaselineView = { history: [], results: resultsFile([flatCell(ID, { decode: 50, accept: 3, step: 60 })]) }
  const pr = (accept: number, step: number) =>
    judgeCell(flatCell(ID, { decode: (1000 * accept) / step, accept, step }), base, GATE).metrics.decode!

  it('attributes a regression decode decides itself', () => {
    const v = pr(3, 66)
    expect(v.status).toBe('regression')
    expect(v.reason).toMatch(/; decode −9\.1%: acceptance length 0\.0%, step time \+10\.0%$/)
    expect(v.factors?.map((f) => [f.metric, f.status])).toEqual([
      ['accept-length', 'pass'],
      ['step-time', 'regression'],
    ])
  })

  it('fails a decode that passes alone when the step slowed beyond its noise and acceptance rose within its own', () => {
    const v = pr(3 * 1.045, 60 * 1.09)
    expect(v.delta).toBeCloseTo(-0.0413, 3)
    expect(v.status).toBe('regression')
    expect(v.reason).toMatch(
      /^decode tok\/s −4\.1% \(noise ±5\.3%\), but step time \+9\.0% is beyond the limit and its own noise ±5\.3%/,
    )
  })

  it('lets an acceptance gain beyond its noise make up for a slower step', () => {
    const v = pr(3 * 1.08, 60 * 1.09)
    expect(v.factors?.map((f) => f.status)).toEqual(['improvement', 'regression'])
    expect(v.status).toBe('pass')
  })

  it('splits nothing when the baseline has no factors (an engine that did not draft then)', () => {
    const plain: BaselineView = { history: [], results: resultsFile([flatCell(ID, { decode: 50 })]) }
    const v = judgeCell(flatCell(ID, { decode: 45, accept: 3, step: 66 }), plain, GATE).metrics.decode!
    expect(v.factors).toBeUndefined()
    expect(v.reason).not.toContain('acceptance length')
  })
})
