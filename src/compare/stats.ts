/** Small robust statistics used by the verdicts. */

export function mean(values: readonly number[]): number {
  let sum = 0
  for (const v of values) sum += v
  return sum / values.length
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

/** Sample variance (ddof 1) of `values` relative to `reference`. */
export function relativeVariance(values: readonly number[], reference: number): number {
  const m = mean(values)
  let ss = 0
  for (const v of values) ss += ((v - m) / reference) ** 2
  return ss / (values.length - 1)
}

export function isUsable(value: number | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}
