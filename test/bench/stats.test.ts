import { describe as group, expect, it } from 'vitest'
import { describe, percentile } from '../../src/core/stats.js'

// Expected values were computed once, offline, with NumPy 2.4.6:
//   import numpy as np; x = np.array([...])
//   [x.mean(), np.percentile(x, 50), np.percentile(x, 90), np.percentile(x, 99), x.std(), x.min(), x.max()]
// (np.percentile defaults to method="linear"; ndarray.std defaults to ddof=0.)
const cases: { name: string; values: number[]; expected: [number, number, number, number, number, number, number] }[] =
  [
    {
      name: 'ten TTFTs, unsorted',
      values: [312.5, 301.2, 305.9, 300.4, 330.1, 299.8, 310.0, 302.7, 318.3, 304.4],
      expected: [308.5300000000001, 305.15, 319.48, 329.038, 9.124916437973566, 299.8, 330.1],
    },
    {
      name: 'two values',
      values: [1, 2],
      expected: [1.5, 1.5, 1.9, 1.99, 0.5, 1, 2],
    },
    {
      name: 'one value',
      values: [42],
      expected: [42, 42, 42, 42, 0, 42, 42],
    },
    {
      name: 'skewed gaps with an outlier',
      values: [25, 25, 25, 26, 24, 25, 250, 25, 24, 26, 25],
      expected: [45.45454545454545, 25.0, 26.0, 227.60000000000008, 64.68576299220948, 24, 250],
    },
  ]

group('describe (NumPy conventions)', () => {
  it.each(cases)('$name', ({ values, expected }) => {
    const s = describe(values)
    const got = [s.mean, s.p50, s.p90, s.p99, s.std, s.min, s.max]
    got.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 9))
  })

  it('gives zeros for an empty sample, as vLLM reports it', () => {
    expect(describe([])).toEqual({ mean: 0, p50: 0, p90: 0, p99: 0, std: 0, min: 0, max: 0 })
  })

  it('does not reorder the caller’s array', () => {
    const values = [3, 1, 2]
    describe(values)
    expect(values).toEqual([3, 1, 2])
  })

  // By hand from the definition: rank = p/100·(n−1) = 0.75 between 10 and 20 → 17.5.
  it('interpolates linearly between ranks', () => {
    expect(percentile([0, 10, 20, 30], 58.3333333333)).toBeCloseTo(17.5, 6)
  })
})
