/** A Unicode sparkline (▁▂▃▄▅▆▇█) of a series, lowest value as the lowest bar; a flat series is a row of middle bars. */
const BARS = '▁▂▃▄▅▆▇█'

/** Runs a sparkline shows: the most recent ones. */
export const SPARK_RUNS = 12

export function sparkline(values: readonly number[], runs = SPARK_RUNS): string {
  const recent = values.filter((v) => Number.isFinite(v)).slice(-runs)
  if (recent.length < 2) return ''
  const lo = Math.min(...recent)
  const hi = Math.max(...recent)
  if (!(hi > lo)) return BARS[3].repeat(recent.length)
  return recent.map((v) => BARS[Math.min(BARS.length - 1, Math.floor(((v - lo) / (hi - lo)) * BARS.length))]).join('')
}
