/** Distribution statistics with NumPy's conventions, so our figures line up with `vllm bench serve`. */
import type { Stats } from './types.js'

export const ZERO_STATS: Readonly<Stats> = Object.freeze({ mean: 0, p50: 0, p90: 0, p99: 0, std: 0, min: 0, max: 0 })

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
  let sum = 0
  for (const v of sorted) sum += v
  const mean = sum / n
  let squares = 0
  for (const v of sorted) squares += (v - mean) * (v - mean)
  return {
    mean,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    std: Math.sqrt(squares / n),
    min: sorted[0],
    max: sorted[n - 1],
  }
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0
  let sum = 0
  for (const v of values) sum += v
  return sum / values.length
}
