import { describe, expect, it } from 'vitest'
import { NOISE_FLOOR, historyShifts, referenceFor, referenceOptions } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { HistoryEntry } from '../../src/core/results.js'

const GATE: GateConfig = {
  decode: { maxRegression: 0.05, stat: 'p50' },
  goodput: { maxDrop: 0.1 },
  'failed-requests': { max: 0.01 },
}

describe('referenceOptions: the options the verdict judges each metric under', () => {
  it.each<[string, Parameters<typeof referenceOptions>, ReturnType<typeof referenceOptions>]>([
    ['a relative metric: its gate entry', ['decode', { gate: GATE }], { config: GATE.decode, noiseFloor: NOISE_FLOOR }],
    [
      'the target’s noise-floor',
      ['decode', { gate: GATE, noiseFloor: 0.05 }],
      { config: GATE.decode, noiseFloor: 0.05 },
    ],
    ['a relative metric the gate leaves out', ['ttft', { gate: GATE }], { config: undefined, noiseFloor: NOISE_FLOOR }],
    ['a share: its drop as an absolute limit', ['goodput', { gate: GATE }], { config: { maxRegression: 0, minDelta: 0.1, stat: 'mean' }, noiseFloor: NOISE_FLOOR }], // prettier-ignore
    ['a ceiling: no limit', ['failed-requests', { gate: GATE }], { noiseFloor: NOISE_FLOOR }],
    ['a target without rules', ['decode', undefined], { config: undefined, noiseFloor: NOISE_FLOOR }],
  ])('%s', (_, args, options) => {
    expect(referenceOptions(...args)).toEqual(options)
  })
})

describe('historyShifts', () => {
  // 60 tok/s for four runs, then 66 (+10 %); a run in the middle did not measure the cell.
  const levels = [60, 60, undefined, 60, 60, 66, 66]
  const history: HistoryEntry[] = levels.map((v, i) => ({
    sha: String(i).repeat(40),
    date: '2026-01-01T00:00:00Z',
    runUrl: '',
    cells:
      v === undefined ? {} : ({ 't/c': { 'decode_tps.mean': { steady: v, rounds: [v, v] } } } as HistoryEntry['cells']),
  }))
  const rules = (noiseFloor?: number) => ({
    t: { gate: { decode: { maxRegression: 0.05, stat: 'mean' as const } }, noiseFloor },
  })

  it.each<[string, number | undefined, number[] | undefined]>([
    ['the built-in floor: the 10 % step is a shift, at its index in the history', undefined, [5]],
    ['a 5 % floor: three times it is past the step', 0.05, undefined],
  ])('%s', (_, floor, starts) => {
    expect(historyShifts([{ id: 't/c', target: 't' }], history, ['decode'], rules(floor))['t/c']?.decode).toEqual(
      starts,
    )
    // The verdict's reference, on the same history under the same rules, rebases exactly when the page marks a shift.
    const reference = referenceFor({ history }, 't/c', 'decode', 'mean', referenceOptions('decode', rules(floor).t))!
    expect(reference.rebased?.sha).toBe(starts && history[starts[0]].sha)
  })
})
