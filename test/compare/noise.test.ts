import { describe, expect, it } from 'vitest'
import {
  NOISE_FLOOR,
  NOISE_Z,
  guardedWithin,
  noiseBand,
  noiseModel,
  qn,
  roundsFor,
  runSpread,
  type NoiseModel,
} from '../../src/compare/index.js'

const f2 = NOISE_FLOOR ** 2

describe('robust spread estimators', () => {
  it('Qn: the third smallest of the ten distances of five values, scaled', () => {
    // Distances of 1…5: 1,1,1,1,2,2,2,3,3,4; k = C(3, 2) = 3 → 1, times 2.21914 and the n = 5 factor 0.84401.
    expect(qn([1, 2, 3, 4, 5])).toBeCloseTo(2.21914 * 0.84401, 9)
    expect(qn([5])).toBe(0)
  })

  it('Qn: two odd values in five do not carry it off; two levels read as the spread within them', () => {
    // The sample standard deviation of 1, 2, 3, 40, 50 is 23; Qn stays at the clean values' scale.
    expect(qn([1, 2, 3, 40, 50])).toBeLessThan(4)
    expect(qn([10, 10.5, 11, 30, 30.5, 31])).toBeLessThan(1.5) // sample sd 11
  })

  it('run spread: the sample variance within segments, a step left out, an odd run set aside', () => {
    const steady = [99, 101, 100, 98, 102]
    const variance = (2.5 * 4) / 4 / 100 ** 2 // sample variance 2.5 (ddof 1)
    expect(runSpread(steady, 100)).toEqual({ variance: expect.closeTo(variance, 12), freedom: 4 })
    // The same runs, then a step to 120 for two runs: the step is a new segment, not noise.
    expect(runSpread([...steady, 119, 121], 100, [5]).variance).toBeCloseTo((10 + 2) / 5 / 100 ** 2, 12)
    // An odd run (a throttled one) among clean ones is set aside.
    expect(runSpread([99, 101, 100, 85, 100.5], 100).freedom).toBe(3)
  })

  it('within-run variance: a run with a throttled round is set aside, the rest pooled at face value', () => {
    const clean = [
      [99, 101],
      [100, 101],
      [98, 99],
      [100, 102],
    ]
    const pooled = guardedWithin(clean)
    expect(guardedWithin([...clean, [100, 85]])).toEqual(pooled)
    expect(pooled.freedom).toBe(4)
  })
})

describe('noiseModel', () => {
  const single = (current: number[], file: number[]) =>
    noiseModel({
      current: [current],
      launches: 1,
      steady: [100],
      rounds: [file],
      breaks: [],
      value: 100,
      runs: 1,
      runRounds: file.length,
      noiseFloor: NOISE_FLOOR,
    })

  it('a baseline file: round noise pooled over both sides, the launch floor assumed on each', () => {
    // Each side: rounds ±1 % → relative squares 2e-4 with 1 df; pooled σ_w² = 2e-4; two rounds a run.
    const model = single([99, 101], [99, 101])
    expect(model).toMatchObject({ restart: f2, assumed: true, rounds: 2, launches: 1 })
    expect(model.within).toBeCloseTo(2e-4, 6)
    expect(model.reference).toBeCloseTo(f2 + 1e-4, 6)
    expect(noiseBand(model)).toBeCloseTo(NOISE_Z * Math.sqrt(2 * (f2 + 1e-4)), 6)
  })

  it('one warm round on each side is never "noise unknown": the floor stands in for the round noise too', () => {
    const model = single([100], [100])
    expect(model.within).toBeCloseTo(f2, 12)
    expect(noiseBand(model)).toBeCloseTo(NOISE_Z * Math.sqrt(4 * f2), 9)
  })

  it('a long history measures the launch-to-launch spread, which then replaces the floor', () => {
    const steady = Array.from({ length: 12 }, (_, i) => 100 + (i % 2 ? 0.5 : -0.5))
    const rounds = steady.map((s) => [s - 0.2, s + 0.2])
    const model = noiseModel({
      current: [[99.8, 100.2]],
      launches: 1,
      steady,
      rounds,
      breaks: [],
      value: 100,
      runs: 5,
      runRounds: 2,
      noiseFloor: NOISE_FLOOR,
    })
    expect(model.assumed).toBe(false)
    expect(model.restart).toBeLessThan(f2)
  })

  it('pooled rounds of two launches halve the launch part of the current side', () => {
    const at = (launches: number) =>
      noiseModel({
        current: [
          [99, 101],
          [99, 101],
        ],
        launches,
        steady: [100],
        rounds: [[99, 101]],
        breaks: [],
        value: 100,
        runs: 1,
        runRounds: 2,
        noiseFloor: NOISE_FLOOR,
      })
    expect(noiseBand(at(2))).toBeLessThan(noiseBand(at(1)))
  })
})

describe('roundsFor', () => {
  const model = (over: Partial<NoiseModel>): NoiseModel => ({
    within: 16e-4,
    restart: f2,
    assumed: false,
    reference: 1e-4,
    rounds: 2,
    launches: 1,
    ...over,
  })

  it('counts the warm rounds until the band is under the target (band ∝ 1/√k for its round part)', () => {
    const m = model({})
    const more = roundsFor(m, 0.08) as number
    expect(NOISE_Z * Math.sqrt(m.restart + m.within / (m.rounds + more) + m.reference)).toBeLessThanOrEqual(0.08)
    expect(NOISE_Z * Math.sqrt(m.restart + m.within / (m.rounds + more - 1) + m.reference)).toBeGreaterThan(0.08)
  })

  it.each<[string, Partial<NoiseModel>, string]>([
    [
      'a measured launch-to-launch spread too wide for the target: a quieter machine',
      { restart: 16e-4 },
      'quieter-box',
    ],
    ['an assumed one: more default-branch runs to measure it', { restart: 16e-4, assumed: true }, 'baseline'],
    ['an uncertain reference: more default-branch runs', { reference: 16e-4 }, 'baseline'],
  ])('%s', (_name, over, needs) => {
    expect(roundsFor(model(over), 0.08)).toBe(needs)
  })
})
