/**
 * The statistics every layer shares: NumPy's conventions for distributions (so figures line up with
 * `vllm bench serve`, which reports `np.mean`, `np.percentile` and `np.std`), and the small robust
 * helpers the verdicts use.
 */
import type { Stats } from './measurements.js'

export const ZERO_STATS: Readonly<Stats> = Object.freeze({ mean: 0, p50: 0, p90: 0, p99: 0, std: 0, min: 0, max: 0 })

/** Arithmetic mean; NaN for no values (as `np.mean([])`), so an empty sample is never mistaken for a zero. */
export function mean(values: readonly number[]): number {
  let sum = 0
  for (const v of values) sum += v
  return sum / values.length
}

/** `np.percentile(sorted, p)` with the default linear method; `sorted` must be ascending and non-empty. */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = (p / 100) * (sorted.length - 1)
  const lo = Math.floor(rank)
  const hi = Math.min(lo + 1, sorted.length - 1)
  const t = rank - lo
  const a = sorted[lo]
  const b = sorted[hi]
  // NumPy interpolates from the nearer end for t >= 0.5; same result, same rounding.
  return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t
}

/** mean, p50/p90/p99, std (ddof 0), min, max. An empty sample gives zeros, as vLLM reports it. */
export function describe(values: readonly number[]): Stats {
  const n = values.length
  if (n === 0) return { ...ZERO_STATS }
  const sorted = [...values].sort((x, y) => x - y)
  const m = mean(sorted)
  let squares = 0
  for (const v of sorted) squares += (v - m) * (v - m)
  return {
    mean: m,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    std: Math.sqrt(squares / n),
    min: sorted[0],
    max: sorted[n - 1],
  }
}

/**
 * The smallest and largest value, in one pass (zeros for no values): `Math.min(...values)` passes every value
 * as an argument and overflows the call stack past about 100k of them (a `--save-detailed` file has one per
 * request).
 */
export function extent(values: readonly number[]): { min: number; max: number } {
  if (!values.length) return { min: 0, max: 0 }
  let min = Infinity
  let max = -Infinity
  for (const v of values) {
    if (v < min) min = v
    if (v > max) max = v
  }
  return { min, max }
}

/** Median; the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Sum of squared deviations from the mean, each value taken relative to the mean (so runs of different size pool). */
export function relativeSquares(values: readonly number[]): number {
  const m = mean(values)
  let ss = 0
  for (const v of values) ss += ((v - m) / m) ** 2
  return ss
}

export function isUsable(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}
