/**
 * Rounds on each launch of an A/B (compare/ab-rounds.ts). Before the A/B, the optimum allocation of two-stage
 * sampling, k* = (σ_w/σ_L)·√(c_L/c_w), from the PR's own measurement: a cheap launch with quiet rounds measures one
 * warm round, a launch that takes minutes to start more. Within a launch, warm rounds are added while the
 * round-to-round part of a gated metric's launch error exceeds the launch-to-launch spread assumed, k·(se/floor)²
 * rounds in all, never past `max-rounds`.
 */
import { describe, expect, it } from 'vitest'
import { abMoreRounds, abWarmRounds } from '../../src/compare/index.js'
import type { CellResult } from '../../src/core/results.js'
import type { GateConfig } from '../../src/core/plan.js'
import { cell, round } from '../helpers/builders.js'

const GATE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' } }

/** A cold round and steady rounds at these decode figures. */
const launch = (...decode: number[]) =>
  cell('t/s', [round(0, false, { decode: 40 }), ...decode.map((d, i) => round(i + 1, true, { decode: d }))])

describe('abMoreRounds', () => {
  it.each<[string, number[], number, number, number]>([
    // Two rounds 50 ± 3: sd 4.24, se 3/50 = 6 %: k·(0.06/0.015)² = 32 rounds, capped by max-rounds.
    ['noisy rounds, room to 10 rounds', [47, 53], 0.015, 10, 7],
    ['noisy rounds, room to 20', [47, 53], 0.015, 20, 17],
    ['noisy rounds, max-rounds already reached', [47, 53], 0.015, 3, 0],
    // se = 0.5/50 = 1 % ≤ the 1.5 % floor: ceil(2·0.44) = 1 < 2 rounds: none.
    ['quiet rounds', [49.5, 50.5], 0.015, 10, 0],
    // Two rounds 50 ± 1: se 2 %: ceil(2·(0.02/0.015)²) = ceil(3.56) = 4: two more.
    ['a little noisy', [49, 51], 0.015, 10, 2],
    ['no floor: nothing to compare with', [47, 53], 0, 10, 0],
    ['one steady round has no spread', [47], 0.015, 10, 0],
  ])('%s', (_, decode, floor, maxRounds, more) => {
    expect(abMoreRounds(launch(...decode), GATE, floor, maxRounds)).toBe(more)
  })

  it('asks nothing of a metric the gate does not use', () => {
    expect(abMoreRounds(launch(47, 53), { 'failed-requests': { max: 0.01 } }, 0.015, 10)).toBe(0)
  })
})

describe('abWarmRounds', () => {
  /** The PR's own measurement: a cold round and steady rounds, 20 s each, after `startup` seconds. */
  const measured = (decode: number[], startup?: number): CellResult => {
    const timed = (r: ReturnType<typeof round>) => ({ ...r, durationMs: 20_000 })
    const rounds = [
      timed(round(0, false, { decode: 40 })),
      ...decode.map((d, i) => timed(round(i + 1, true, { decode: d }))),
    ]
    return cell('t/s', rounds, startup === undefined ? {} : { startup_s: startup })
  }
  it.each<[string, number[], number | undefined, number, number]>([
    // sd of 49, 51 is 1.41, 2.8 % of 50: k* = (0.028 / 0.015) · √(20 / 20) = 1.9 → 2.
    ['rounds as noisy as two floors, a cheap launch', [49, 51], undefined, 8, 2],
    // sd 0.35 / 50 = 0.7 %: k* = 0.47 → 1: the time goes to launches.
    ['quiet rounds, a cheap launch', [49.75, 50.25], undefined, 8, 1],
    // The same rounds after a 300 s start-up: k* = 0.47 · √(320 / 20) = 1.9 → 2.
    ['quiet rounds, a launch that takes five minutes', [49.75, 50.25], 300, 8, 2],
    // sd 4.2 / 50 = 8.5 %: k* = 5.7 → 6, held to the cell's own warm rounds.
    ['noisy rounds: up to the cell own warm rounds', [47, 53], undefined, 4, 4],
    ['one steady round says nothing: the cell own', [50], undefined, 2, 2],
  ])('%s', (_, decode, startup, most, k) => {
    expect(abWarmRounds(measured(decode, startup), GATE, 0.015, most)).toBe(k)
  })

  it('no noise floor: the cell own rounds', () => {
    expect(abWarmRounds(measured([49.75, 50.25]), GATE, 0, 3)).toBe(3)
  })
})
