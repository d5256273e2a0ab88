import { describe, expect, it } from 'vitest'
import { moreRounds, type BaselineView } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { cell, historyEntry, round } from '../helpers/builders.js'

const ID = 'sim-fp8/chat-1k'
const DECODE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' } }

/** One discarded round, then steady rounds alternating ±s around `decode`. */
function measured(decode: number, s: number, steady = 2, extra: Partial<CellResult> = {}): CellResult {
  const rounds = [
    round(0, false, { decode: decode * 0.7 }),
    ...Array.from({ length: steady }, (_, i) => round(i + 1, true, { decode: decode * (i % 2 ? 1 + s : 1 - s) })),
  ]
  return cell(ID, rounds, extra)
}

const view = (s: number): BaselineView => ({
  history: [50, 50.4, 49.6, 50.2, 49.8].map((d, i) => historyEntry([measured(d, s)], ['decode_tps.mean'], `sha${i}`)),
})

describe('moreRounds: measure more warm rounds only when noise alone keeps the cell undecided', () => {
  it('asks for the rounds the noise model says would decide, when max-rounds leaves room for them', () => {
    // −8 % with rounds ±3 %: inconclusive, and three more warm rounds would narrow the band past the change.
    expect(moreRounds(measured(46, 0.03), view(0.03), DECODE, { maxRounds: 6 })).toBe(3)
  })

  it.each<[string, CellResult, BaselineView, number]>([
    ['the rounds it needs do not fit in max-rounds', measured(46, 0.03), view(0.03), 5],
    ['max-rounds is reached', measured(46, 0.03, 5), view(0.03), 6],
    ['a clear regression goes to confirmation instead', measured(40, 0.005), view(0.005), 6],
    ['a pass is decided', measured(49.5, 0.005), view(0.005), 6],
    [
      'a flagged cell is undecided for its workload, not for noise',
      measured(46, 0.03, 2, { flags: ['usage-missing: 2/8 requests'] }),
      view(0.03),
      6,
    ],
    [
      'the reference alone is too uncertain: more main runs would decide, not more rounds here',
      measured(46.5, 0.04),
      view(0.04),
      6,
    ],
    ['a cell that could not be measured', { ...measured(46, 0.03), status: 'error', metrics: null }, view(0.03), 6],
  ])('none when %s', (_name, c, v, maxRounds) => {
    expect(moreRounds(c, v, DECODE, { maxRounds })).toBe(0)
  })
})
