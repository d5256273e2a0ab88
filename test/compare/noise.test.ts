import { describe, expect, it } from 'vitest'
import { NOISE_Z, noiseBand, type BaselineSample } from '../../src/compare/index.js'

const file = (value: number, rounds: number[]): BaselineSample => ({ value, source: 'file', steady: [value], rounds: [rounds] })

describe('noiseBand (relative half-width, Z = 2)', () => {
  it('single file: within-run spread pooled over both sides, one run each', () => {
    // Each side: rounds ±1 % around 100 → relative SS 2e-4 with 1 df; pooled s_w² = 2e-4; one run of 2 rounds: 1e-4.
    expect(noiseBand([99, 101], file(100, [99, 101]))).toBeCloseTo(NOISE_Z * Math.sqrt(1e-4 + 1e-4), 6)
  })

  it('history: between-run spread dominates when runs differ more than rounds do; the median counts (π/2)/n', () => {
    const steady = [98, 99, 100, 101, 102]
    const sample: BaselineSample = { value: 100, source: 'history', steady, rounds: steady.map((s) => [s - 0.5, s + 0.5]) }
    const between = 2.5 / 100 ** 2 // sample variance of 98…102 is 2.5, relative to the median 100
    expect(noiseBand([99.5, 100.5], sample)).toBeCloseTo(NOISE_Z * Math.sqrt(between + ((Math.PI / 2) * between) / 5), 6)
  })

  it('a noisy current run widens the band even against a quiet baseline', () => {
    expect(noiseBand([90, 110], file(100, [100, 100]))!).toBeGreaterThan(noiseBand([99, 101], file(100, [100, 100]))!)
  })

  it.each([
    ['one steady round on each side', [50], file(50, [50])],
    ['no rounds at all', [], file(50, [])],
  ])('unknown with %s', (_name, current, baseline) => {
    expect(noiseBand(current, baseline)).toBeUndefined()
  })
})
