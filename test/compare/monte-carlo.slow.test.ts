/**
 * Seeded Monte-Carlo proof of the gate, run the way the pipeline runs it: a history of default-branch runs (or a
 * baseline file) → reference → noise band → verdict → more warm rounds while `moreRounds` asks (max-rounds 6) →
 * for a cell that looks regressed, a fresh measurement judged pooled with the first (`confirmCell`, confirm: 1).
 *
 * Every run measures decode tok/s (50) and TTFT (400 ms) per round with independent normal noise of 2 % CV; a
 * scenario adds a launch-to-launch offset (each launch, main's or the PR's, shifted by N(0, 2 %) — the confirmation
 * runs on the PR's launch unless it re-launches), heavy tails (one round in ten 15 % slow: decode × 0.85, TTFT ×
 * 1.15, as thermal throttling does), a +20 % speed-up main accepted a few runs before the PR, one warm round per
 * run (rounds 2, discard 1), or a baseline file instead of a history. The gate is the built-in one: decode
 * max-regression 5 %, TTFT 10 % and 50 ms, failed requests 1 %. A real loss counts as caught when its own metric
 * fails (a decode loss by decode); a false alarm is any failure of an identical cell.
 *
 * 2,000 trials per case. A rate's binomial standard error is then at most 0.22 points at 1 % (and at 99 %), 0.31 at
 * 2 %, 0.49 at 5 % (and at 95 %): a measured rate a few standard errors inside its bound holds with better than
 * 95 % confidence. The table printed at the end has every rate, the first look's too (before confirmation).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { confirmCell, judgeCell, moreRounds, needsConfirmation, type BaselineView } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult, CellVerdict } from '../../src/core/results.js'
import { historyEntry, resultsFile } from '../helpers/builders.js'
import { type SimNoise, extendCell, launch, normalSource, simCell, uniformSource } from '../helpers/sim-launch.js'

const TRIALS = 2000
const MAX_ROUNDS = 6
const ID = 'sim-fp8/chat-1k'
const LEVEL = { decode: 50, ttft: 400 }
const GATE: GateConfig = {
  decode: { maxRegression: 0.05, stat: 'mean' },
  ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
  'failed-requests': { max: 0.01 },
}
const KEYS = ['decode_tps.mean', 'ttft_ms.mean', 'failed_share']

const QUIET: SimNoise = { cv: 0.02 }
const HEAVY: SimNoise = { cv: 0.02, slow: { share: 0.1, by: 0.15 } }
const RESTART: SimNoise = { cv: 0.02, restart: 0.02 }

interface Scenario {
  name: string
  noise: SimNoise
  rounds: number
  discard: number
  /** Default-branch runs in the history; 0 for a baseline file only. */
  history: number
  /** Main got faster `runs` runs before the PR: decode × (1 + by), TTFT ÷ (1 + by) from then on, the PR too. */
  shift?: { by: number; runs: number }
  /** The confirmation re-launches the engine (`confirm-fresh`). */
  fresh?: boolean
}

const base = { noise: QUIET, rounds: 3, discard: 1, history: 5 }
const S = {
  quiet: { name: '2 % CV, 5-run history', ...base },
  heavy: { name: 'one round in ten 15 % slow', ...base, noise: HEAVY },
  restart: { name: '2 % launch-to-launch noise', ...base, noise: RESTART },
  shift3: { name: '+20 % level shift 3 runs back', ...base, history: 10, shift: { by: 0.2, runs: 3 } },
  shift2: { name: '+20 % level shift 2 runs back', ...base, history: 10, shift: { by: 0.2, runs: 2 } },
  oneWarm: { name: 'one warm round, 1-run history', ...base, rounds: 2, history: 1 },
  oneWarmHeavy: { name: 'one warm round, heavy tails', ...base, rounds: 2, noise: HEAVY },
  file: { name: 'baseline file only', ...base, history: 0 },
  fileRestart: { name: 'file only, launch noise', ...base, history: 0, noise: RESTART },
  fileRestartFresh: { name: 'file only, launch noise, fresh', ...base, history: 0, noise: RESTART, fresh: true },
} satisfies Record<string, Scenario>

interface Effect {
  name: string
  decode: number
  ttft: number
  /** The metric that must catch it; a false alarm is any regression. */
  metric?: 'decode' | 'ttft'
}
const SAME: Effect = { name: 'identical', decode: 1, ttft: 1 }
const DECODE_10: Effect = { name: 'decode −10 %', decode: 0.9, ttft: 1, metric: 'decode' }
const TTFT_20: Effect = { name: 'TTFT +20 %', decode: 1, ttft: 1.2, metric: 'ttft' }
const DECODE_30: Effect = { name: 'decode −30 %', decode: 0.7, ttft: 1, metric: 'decode' }

interface Rates {
  /** The cell failed (identical code), or the effect's own metric did (a real loss). */
  regression: number
  inconclusive: number
  /** Regression on the first look, before more rounds and confirmation. */
  first: number
  /** Mean warm rounds added by `moreRounds`. */
  extra: number
}

/** One PR cell: measure, more rounds while asked, judge, confirm. Returns the first look and the final verdict. */
function trial(
  sc: Scenario,
  effect: Effect,
  draw: () => number,
  uniform: () => number,
): { first: CellVerdict; final: CellVerdict; extra: number } {
  const level = (i: number) => {
    const up = sc.shift && i >= sc.history - sc.shift.runs ? 1 + sc.shift.by : 1
    return { decode: LEVEL.decode * up, ttft: LEVEL.ttft / up }
  }
  const runs = Array.from({ length: Math.max(sc.history, 1) }, (_, i) =>
    simCell(ID, launch(level(i), sc.noise, draw, uniform), sc.rounds, sc.discard),
  )
  const view: BaselineView = sc.history
    ? { history: runs.map((r, i) => historyEntry([r], KEYS, `${i}`.padStart(40, '0'))) }
    : { history: [], results: resultsFile(runs) }
  const now = level(sc.history)
  const pr = { decode: now.decode * effect.decode, ttft: now.ttft * effect.ttft }
  const at = launch(pr, sc.noise, draw, uniform)
  let cell: CellResult = simCell(ID, at, sc.rounds, sc.discard)
  const first = judgeCell(cell, view, GATE)
  let extra = 0
  for (
    let more = moreRounds(cell, view, GATE, { maxRounds: MAX_ROUNDS });
    more > 0;
    more = moreRounds(cell, view, GATE, { maxRounds: MAX_ROUNDS })
  ) {
    cell = extendCell(cell, at, more)
    extra += more
  }
  cell.verdict = judgeCell(cell, view, GATE)
  if (!needsConfirmation(cell.verdict)) return { first, final: cell.verdict, extra }
  const again = simCell(ID, sc.fresh ? launch(pr, sc.noise, draw, uniform) : at, sc.rounds, sc.discard)
  return { first, final: confirmCell(cell, [again], view, GATE, { fresh: sc.fresh }), extra }
}

function simulate(sc: Scenario, effect: Effect, seed: number): Rates {
  const draw = normalSource(seed)
  const uniform = uniformSource(seed + 1)
  const rates: Rates = { regression: 0, inconclusive: 0, first: 0, extra: 0 }
  for (let t = 0; t < TRIALS; t++) {
    const { first, final, extra } = trial(sc, effect, draw, uniform)
    const failed = (v: CellVerdict) =>
      effect.metric ? v.metrics[effect.metric]?.status === 'regression' : v.status === 'regression'
    if (failed(final)) rates.regression += 1 / TRIALS
    if (final.status === 'inconclusive') rates.inconclusive += 1 / TRIALS
    if (failed(first)) rates.first += 1 / TRIALS
    rates.extra += extra / TRIALS
  }
  return rates
}

interface Case {
  scenario: Scenario
  effect: Effect
  /** Bounds: the final regression rate at most / at least, the inconclusive rate at most. */
  regressionAtMost?: number
  regressionAtLeast?: number
  inconclusiveAtMost?: number
}

const falseAlarms = (scenario: Scenario, bound: number, inconclusiveAtMost?: number): Case => ({
  scenario,
  effect: SAME,
  regressionAtMost: bound,
  inconclusiveAtMost,
})
const caught = (scenario: Scenario, effect: Effect, bound: number): Case => ({
  scenario,
  effect,
  regressionAtLeast: bound,
})

const cases: Case[] = [
  falseAlarms(S.quiet, 0.01, 0.05),
  caught(S.quiet, DECODE_10, 0.95),
  caught(S.quiet, TTFT_20, 0.95),
  caught(S.quiet, DECODE_30, 0.99),
  falseAlarms(S.heavy, 0.02),
  caught(S.heavy, DECODE_30, 0.99),
  falseAlarms(S.restart, 0.02),
  caught(S.restart, DECODE_30, 0.99),
  falseAlarms(S.shift3, 0.01),
  caught(S.shift3, DECODE_10, 0.95),
  caught(S.shift3, TTFT_20, 0.95),
  caught(S.shift3, DECODE_30, 0.99),
  falseAlarms(S.shift2, 0.01),
  caught(S.shift2, DECODE_10, 0.95),
  caught(S.shift2, DECODE_30, 0.99),
  falseAlarms(S.oneWarm, 0.01),
  caught(S.oneWarm, DECODE_30, 0.99),
  falseAlarms(S.oneWarmHeavy, 0.02),
  caught(S.oneWarmHeavy, DECODE_30, 0.99),
  falseAlarms(S.file, 0.01),
  caught(S.file, DECODE_30, 0.99),
  // The noise floor (1.5 %) is below the simulated 2 % launch noise, which a single file cannot show: with the
  // confirmation on the same launch the false alarms are printed, not bounded (about 2 %; `noise-floor: 2%` or
  // `confirm-fresh` bring them under it, the second is bounded below).
  { scenario: S.fileRestart, effect: SAME },
  caught(S.fileRestart, DECODE_30, 0.99),
  falseAlarms(S.fileRestartFresh, 0.02),
  caught(S.fileRestartFresh, DECODE_30, 0.99),
]

const table: string[] = []
const pct = (x: number) => `${(x * 100).toFixed(2)}%`.padStart(7)

afterAll(() => {
  console.log(
    ['scenario                        effect          regression (first look)  inconclusive  rounds+', ...table].join(
      '\n',
    ),
  )
})

describe(`the gate under noise (${TRIALS} trials a case, seeded)`, () => {
  it.each(cases.map((c, i) => ({ ...c, seed: 101 + i, title: `${c.scenario.name}: ${c.effect.name}` })))(
    '$title',
    (c) => {
      const rates = simulate(c.scenario, c.effect, c.seed)
      table.push(
        `${c.scenario.name.padEnd(32)}${c.effect.name.padEnd(16)}${pct(rates.regression)} (${pct(rates.first)})       ${pct(rates.inconclusive)}      ${rates.extra.toFixed(2)}`,
      )
      if (c.regressionAtMost !== undefined) expect(rates.regression).toBeLessThanOrEqual(c.regressionAtMost)
      if (c.regressionAtLeast !== undefined) expect(rates.regression).toBeGreaterThanOrEqual(c.regressionAtLeast)
      if (c.inconclusiveAtMost !== undefined) expect(rates.inconclusive).toBeLessThanOrEqual(c.inconclusiveAtMost)
    },
  )
})
