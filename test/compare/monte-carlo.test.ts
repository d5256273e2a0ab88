/**
 * Seeded Monte-Carlo proof of the regression rule, run the way the pipeline runs it.
 *
 * Setup (every trial): per-round noise with a 2 % coefficient of variation on every figure (normal, independent
 * between rounds and runs); each run measures 3 rounds and discards the first; the baseline is a history of 5
 * default-branch runs (the newest also serves as the baseline file); the gate is max-regression 5 % on decode
 * tok/s (mean) and on TTFT (mean). A cell that looks regressed is re-measured once (`confirm: 1`) with a fresh
 * 3-round run and fails only when `confirmVerdict` keeps the regression. 2,000 trials per case.
 */
import { describe, expect, it } from 'vitest'
import { confirmVerdict, judgeCell, needsConfirmation, type BaselineView } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult, CellVerdict } from '../../src/core/results.js'
import { cell, historyEntry, normalSource, resultsFile, round } from './fixtures.js'

const TRIALS = 2000
const CV = 0.02
const ROUNDS = 3
const DISCARD = 1
const HISTORY_RUNS = 5
const DECODE = 50
const TTFT = 400
const ID = 'sim-fp8/chat-1k'
const GATE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' }, ttft: { maxRegression: 0.05, stat: 'mean' } }
const KEYS = ['decode_tps.mean', 'ttft_ms.mean']

interface Shift {
  decode: number
  ttft: number
}

function simulate(shift: Shift, seed: number, historyRuns = HISTORY_RUNS): { first: number; confirmed: number; inconclusive: number } {
  const normal = normalSource(seed)
  const measure = (s: Shift): CellResult =>
    cell(
      ID,
      Array.from({ length: ROUNDS }, (_, i) =>
        round(i, i >= DISCARD, { decode: DECODE * s.decode * (1 + CV * normal()), ttft: TTFT * s.ttft * (1 + CV * normal()) }),
      ),
    )
  let first = 0
  let confirmed = 0
  let inconclusive = 0
  for (let trial = 0; trial < TRIALS; trial++) {
    const runs = Array.from({ length: Math.max(historyRuns, 1) }, () => measure({ decode: 1, ttft: 1 }))
    const history = historyRuns ? runs.map((r, i) => historyEntry([r], KEYS, `sha${i}`)) : []
    const view: BaselineView = { history, results: resultsFile([runs.at(-1)!]) }
    let verdict: CellVerdict = judgeCell(measure(shift), view, GATE)
    if (needsConfirmation(verdict)) first++
    // As the pipeline does with confirm: 1.
    for (let i = 0; i < 1 && needsConfirmation(verdict); i++) verdict = confirmVerdict(verdict, judgeCell(measure(shift), view, GATE))
    if (verdict.status === 'regression') confirmed++
    if (verdict.status === 'inconclusive') inconclusive++
  }
  return { first: first / TRIALS, confirmed: confirmed / TRIALS, inconclusive: inconclusive / TRIALS }
}

const pct = (x: number) => `${(x * 100).toFixed(2)}%`

describe('regression rule under 2 % round noise (3 rounds, discard 1, 5-run history, limit 5 %, confirm 1)', () => {
  it('calls identical distributions a regression in at most 1 % of trials', () => {
    const rate = simulate({ decode: 1, ttft: 1 }, 1)
    console.log(`false regressions, identical code: ${pct(rate.confirmed)} after confirmation (${pct(rate.first)} before), inconclusive ${pct(rate.inconclusive)}`)
    expect(rate.confirmed).toBeLessThanOrEqual(0.01)
  })

  it('catches decode tok/s 10 % lower in at least 95 % of trials', () => {
    const rate = simulate({ decode: 0.9, ttft: 1 }, 2)
    console.log(`detected, decode −10%: ${pct(rate.confirmed)} after confirmation (${pct(rate.first)} before)`)
    expect(rate.confirmed).toBeGreaterThanOrEqual(0.95)
  })

  it('catches TTFT 10 % higher in at least 95 % of trials', () => {
    const rate = simulate({ decode: 1, ttft: 1.1 }, 3)
    console.log(`detected, TTFT +10%: ${pct(rate.confirmed)} after confirmation (${pct(rate.first)} before)`)
    expect(rate.confirmed).toBeGreaterThanOrEqual(0.95)
  })
})

describe('the same rule against a single baseline file (no history yet; otherwise the same setup)', () => {
  it.each([
    ['identical code', { decode: 1, ttft: 1 }, 4],
    ['decode −10%', { decode: 0.9, ttft: 1 }, 5],
    ['TTFT +10%', { decode: 1, ttft: 1.1 }, 6],
  ])('%s', (name, shift, seed) => {
    const rate = simulate(shift, seed, 0)
    console.log(`single baseline file, ${name}: regression in ${pct(rate.confirmed)} after confirmation (${pct(rate.first)} before), inconclusive ${pct(rate.inconclusive)}`)
    if (shift.decode === 1 && shift.ttft === 1) expect(rate.confirmed).toBeLessThanOrEqual(0.01)
    else expect(rate.confirmed).toBeGreaterThanOrEqual(0.9)
  })
})
