/**
 * One small inline-SVG trend chart: a metric's steady value over the history, oldest left, a gap where a
 * run did not measure the cell, a dashed line where a level shift starts. Coordinates are whole numbers in
 * a fixed view box, so a 100-run series stays about a kilobyte; the page's script reads `data-y` to put
 * the hover dot on the line.
 */
import { escapeHtml } from './escape.js'

export const CHART = { width: 600, height: 120, pad: 6 } as const

export interface Trend {
  /** One value per history entry (null: not measured in that run). */
  values: readonly (number | null)[]
  /** History indexes where a detected level shift starts. */
  shifts: readonly number[]
  /** `decode tok/s`, for the accessible name. */
  label: string
}

/** x of history index `i` of `n`, the same rule the page's script inverts. */
export function xOf(i: number, n: number): number {
  const inner = CHART.width - 2 * CHART.pad
  return Math.round(n <= 1 ? CHART.width / 2 : CHART.pad + (i * inner) / (n - 1))
}

function yScale(values: readonly (number | null)[]): (v: number) => number {
  const present = values.filter((v): v is number => v !== null)
  let lo = Math.min(...present)
  let hi = Math.max(...present)
  if (!(hi > lo)) [lo, hi] = [lo - Math.abs(lo || 1) * 0.05, hi + Math.abs(hi || 1) * 0.05]
  const inner = CHART.height - 2 * CHART.pad
  return (v) => Math.round(CHART.pad + ((hi - v) * inner) / (hi - lo))
}

/** The chart's SVG; `attrs` are extra attributes (already escaped) the script uses to find its data. */
export function trendChart(trend: Trend, attrs: string): string {
  const n = trend.values.length
  const present = trend.values.some((v) => v !== null)
  const y = present ? yScale(trend.values) : () => 0
  const ys = trend.values.map((v) => (v === null ? '' : String(y(v))))
  let d = ''
  let pen = false
  trend.values.forEach((v, i) => {
    if (v === null) return void (pen = false)
    d += `${pen ? 'L' : 'M'}${xOf(i, n)} ${y(v)}`
    pen = true
  })
  const single =
    trend.values.length === 1 && present ? `<circle cx="${xOf(0, 1)}" cy="${ys[0]}" r="3" class="point"/>` : ''
  const shifts = trend.shifts
    .filter((i) => i > 0 && i < n)
    .map((i) => `<line class="shift" x1="${xOf(i, n)}" x2="${xOf(i, n)}" y1="0" y2="${CHART.height}"/>`)
    .join('')
  const { width, height } = CHART
  return (
    `<svg class="trend" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(trend.label)} over ${n} runs"` +
    ` data-n="${n}" data-y="${ys.join(',')}" data-shifts="${trend.shifts.join(',')}"${attrs}>` +
    `${shifts}<path d="${d}"/>${single}<circle class="dot" r="4" cx="-10" cy="-10"/></svg>`
  )
}
