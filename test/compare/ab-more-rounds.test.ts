/**
 * The adaptive rounds rule within one launch of an A/B: warm rounds are added while the round-to-round part of a
 * gated metric's launch error exceeds the launch-to-launch spread assumed, k·(se/floor)² rounds in all, never past
 * `max-rounds`.
 */
import { describe, expect, it } from 'vitest'
import { abMoreRounds } from '../../src/compare/index.js'
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
