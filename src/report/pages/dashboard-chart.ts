/**
 * One small inline-SVG trend chart: a metric's steady value over the history, oldest left, a point at every run
 * that measured the cell, a gap where a run did not, a dashed line where a level shift starts, and a y axis with
 * labelled ticks. The shaded band is the gate's limit around the reference (the median of the newest
 * REFERENCE_RUNS runs since the last level shift, as compare/reference.ts takes it), and the y range always holds
 * the whole band: a change the gate would not flag is drawn inside the band, never as a full-height line.
 *
 * Size: a 50-cell page with 100 runs has 10,000 points, so a point is not an element of its own: the line's path
 * has a vertex at every run, written with relative coordinates, and the page's one `<marker>` (TREND_POINT_ID)
 * draws a circle at every vertex. The page's script reads the vertices back from the path to put the hover dot.
 */
import { REFERENCE_RUNS } from '../../compare/index.js'
import { formatNumber, MINUS } from '../../core/format.js'
import { median } from '../../core/stats.js'
import { escapeHtml } from '../escape.js'
import { referenceLine, regressedMark, runMark, type RegressedPoint, type RunPoint } from './dashboard-marks.js'

/** The view box and the plot's margins: tick labels in `left`, the unit above them in `top`. */
export const CHART = { width: 600, height: 140, left: 64, right: 10, top: 30, bottom: 10 } as const
const PLOT_WIDTH = CHART.width - CHART.left - CHART.right
const PLOT_BOTTOM = CHART.height - CHART.bottom
const PLOT_HEIGHT = PLOT_BOTTOM - CHART.top

/** The marker every trend line draws at its vertices (one definition per page, `trendDefs`). */
export const TREND_POINT_ID = 'trend-point'

export interface TrendBand {
  low: number
  high: number
  /** `limit ±5% around 28.4 tok/s`: the band's accessible text. */
  title: string
}

export interface Trend {
  /** One value per history entry (null: not measured in that run). */
  values: readonly (number | null)[]
  /** History indexes where a detected level shift starts. */
  shifts: readonly number[]
  /** `decode tok/s`, for the accessible name. */
  label: string
  /** `tok/s`, written above the tick labels. */
  unit: string
  band?: TrendBand
  /** What the figure can be at all (a share in percent: 0–100): the axis never runs past it. */
  bounds?: readonly [number, number]
  /** Commits a bisection named for the cell, at the history index of their run, each linked (dashboard.ts). */
  culprits?: readonly TrendCulprit[]
  /** This run, when it is not a default-branch run: a point of its own after the history (dashboard-marks.ts). */
  run?: RunPoint
  /** History points whose run's verdict was a regression. */
  regressed?: readonly RegressedPoint[]
  /** The level the verdicts compared with, drawn as a line: `baseline 28.5 tok/s`. */
  reference?: { value: number; title: string }
}

export interface TrendCulprit {
  index: number
  /** `culprit 6774046 (#57 Faster sampler)`: the mark's accessible text. */
  title: string
  /** The commit or its pull request; absent without a repository URL. */
  href?: string
}

/** A culprit's mark: a line across the plot at its run, a triangle on top, linked where there is a link. */
function culpritMark(c: TrendCulprit, n: number): string {
  const x = xOf(c.index, n)
  const mark =
    `<line class="culprit" x1="${x}" x2="${x}" y1="${CHART.top}" y2="${PLOT_BOTTOM}"/>` +
    `<path class="culprit-head" d="M${x - 6} ${CHART.top - 10}h12l-6 9z"/><title>${escapeHtml(c.title)}</title>`
  return c.href ? `<a href="${escapeHtml(c.href)}">${mark}</a>` : `<g>${mark}</g>`
}

/** x of history index `i` of `n`, the same rule the page's script inverts. */
export function xOf(i: number, n: number): number {
  return Math.round(n <= 1 ? CHART.left + PLOT_WIDTH / 2 : CHART.left + (i * PLOT_WIDTH) / (n - 1))
}

/**
 * The level the gate compares against: the median of the newest REFERENCE_RUNS measured values from the last level
 * shift on; undefined when no run measured the figure.
 */
export function trendReference(values: readonly (number | null)[], shifts: readonly number[]): number | undefined {
  const from = Math.max(0, ...shifts.filter((i) => i < values.length))
  const since = values.slice(from).filter((v): v is number => v !== null)
  return since.length ? median(since.slice(-REFERENCE_RUNS)) : undefined
}

/**
 * Ticks at multiples of a 1, 2 or 5 × 10ⁿ step, the first at or below `lo`, the last at or above `hi`: the smallest
 * such step that needs at most 6 ticks, which needs at least 3 (the step before it needed 7 or more, and a step is
 * at most 2.5 times the one before).
 */
export function niceTicks(lo: number, hi: number): number[] {
  const span = hi - lo > 0 ? hi - lo : Math.abs(hi) || 1
  let exponent = Math.floor(Math.log10(span / 6))
  for (;;) {
    for (const m of [1, 2, 5]) {
      const step = m * 10 ** exponent
      const first = Math.floor(lo / step + 1e-9)
      const last = Math.max(Math.ceil(hi / step - 1e-9), first + 2)
      if (last - first + 1 <= 6)
        return Array.from({ length: last - first + 1 }, (_, k) => Number(((first + k) * step).toPrecision(15)))
    }
    exponent++
  }
}

/**
 * Tick labels as the page writes numbers (formatNumber), unless that precision makes two of them read the same
 * (a tight limit on a large value): then with the step's decimals.
 */
export function tickLabels(ticks: readonly number[]): string[] {
  const labels = ticks.map(formatNumber)
  if (new Set(labels).size === labels.length) return labels
  const step = Math.abs(ticks[1] - ticks[0])
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9))
  return ticks.map((t) => {
    const text = Math.abs(t).toLocaleString('en-US', {
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    })
    return t < 0 ? MINUS + text : text
  })
}

export interface TrendScale {
  ticks: number[]
  /** A value → y in the view box, a whole number. */
  y(value: number): number
}

/**
 * The y axis: the data's range and the band's together, padded by 3%, kept within `bounds`, widened to the nice
 * ticks around them (a 1-2-5 step divides 0 and 100, so a share's axis still ends at 100 %).
 */
export function trendScale(
  values: readonly (number | null)[],
  band?: TrendBand,
  bounds: readonly [number, number] = [0, Infinity],
): TrendScale {
  const present = values.filter((v): v is number => v !== null)
  const ends = band ? [...present, band.low, band.high] : present
  let lo = Math.min(...ends)
  let hi = Math.max(...ends)
  const pad = hi > lo ? (hi - lo) * 0.03 : Math.abs(hi) * 0.05 || 1
  ;[lo, hi] = [lo - pad, hi + pad]
  ;[lo, hi] = [Math.max(bounds[0], lo), Math.min(bounds[1], hi)]
  const ticks = niceTicks(lo, hi)
  const [bottom, top] = [ticks[0], ticks[ticks.length - 1]]
  return { ticks, y: (v) => Math.round(CHART.top + ((top - v) * PLOT_HEIGHT) / (top - bottom)) }
}

/**
 * The line through every measured run: `M` where a run follows a gap, then relative `l` steps (x always grows, so
 * a pair needs a separator only before a positive dy), and `h0` for a run with gaps on both sides: a vertex of
 * its own, so it gets its marker.
 */
export function linePath(values: readonly (number | null)[], y: (v: number) => number): string {
  const n = values.length
  let d = ''
  let prev: [number, number] | undefined
  values.forEach((v, i) => {
    if (v === null) return void (prev = undefined)
    const at: [number, number] = [xOf(i, n), y(v)]
    if (prev) {
      const [dx, dy] = [at[0] - prev[0], at[1] - prev[1]]
      d += `${d.endsWith('l') ? '' : ' '}${dx}${dy < 0 ? '' : ' '}${dy}`
    } else d += `M${at[0]} ${at[1]}${i + 1 < n && values[i + 1] !== null ? 'l' : 'h0'}`
    prev = at
  })
  return d
}

function axis(scale: TrendScale, unit: string): string {
  const labels = tickLabels(scale.ticks)
  const grid = scale.ticks.map((t) => `M${CHART.left} ${scale.y(t)}h${PLOT_WIDTH}`).join('')
  const texts = scale.ticks.map((t, k) => `<text x="${CHART.left - 6}" y="${scale.y(t) + 6}">${labels[k]}</text>`)
  return (
    `<path class="grid" d="${grid}"/><g class="ticks">${texts.join('')}</g>` +
    `<text class="unit" x="${CHART.left - 6}" y="16">${escapeHtml(unit)}</text>`
  )
}

function bandRect(band: TrendBand, scale: TrendScale): string {
  const top = scale.y(band.high)
  const height = Math.max(1, scale.y(band.low) - top)
  return `<rect class="band" x="${CHART.left}" y="${top}" width="${PLOT_WIDTH}" height="${height}"><title>${escapeHtml(band.title)}</title></rect>`
}

/**
 * The chart's SVG; `attrs` are extra attributes (already escaped) the script uses to find its data. With `run`, the
 * x axis has one slot more than the history, this run's, and `data-run-y` tells the script where its point is.
 */
export function trendChart(trend: Trend, attrs: string): string {
  const values = trend.run ? [...trend.values, trend.run.value] : trend.values
  const n = values.length
  const present = values.some((v) => v !== null)
  const shifts = trend.shifts
    .filter((i) => i > 0 && i < n)
    .map((i) => `<line class="shift" x1="${xOf(i, n)}" x2="${xOf(i, n)}" y1="${CHART.top}" y2="${PLOT_BOTTOM}"/>`)
    .join('')
  const culprits = (trend.culprits ?? []).filter((c) => c.index >= 0 && c.index < n).map((c) => culpritMark(c, n))
  let body = `<text class="empty" x="${CHART.left + PLOT_WIDTH / 2}" y="${CHART.top + PLOT_HEIGHT / 2}">not measured</text>`
  let runY = ''
  if (present) {
    const scale = trendScale(values, trend.band, trend.bounds)
    const band = trend.band ? bandRect(trend.band, scale) : ''
    const line = linePath(trend.run ? [...trend.values, null] : trend.values, scale.y)
    const marks = pointMarks(trend, scale, n)
    body = `${band}${axis(scale, trend.unit)}${marks.reference}<path class="line" d="${line}"/>${marks.points}`
    if (trend.run?.value != null) runY = ` data-run-y="${scale.y(trend.run.value)}"`
  }
  const { width, height } = CHART
  const over = trend.run ? `${n - 1} default-branch runs and ${trend.run.label}` : `${n} runs`
  return (
    `<svg class="trend" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(`${trend.label} over ${over}`)}"` +
    ` data-n="${n}" data-shifts="${trend.shifts.join(',')}"${runY}${attrs}>` +
    `${shifts}${body}${culprits.join('')}<circle class="dot" r="5" cx="-10" cy="-10"/></svg>`
  )
}

/** The reference line, the regressed rings and this run's diamond, placed on the chart's scale. */
function pointMarks(trend: Trend, scale: TrendScale, n: number): { reference: string; points: string } {
  const ref = trend.reference
  const reference = ref ? referenceLine(scale.y(ref.value), CHART.left, PLOT_WIDTH, ref.title) : ''
  const rings = (trend.regressed ?? [])
    .filter((p) => p.index >= 0 && p.index < trend.values.length && trend.values[p.index] !== null)
    .map((p) => regressedMark(p, { x: xOf(p.index, n), y: scale.y(trend.values[p.index]!) }))
  const run = trend.run
  const diamond = run && run.value !== null ? runMark(run, { x: xOf(n - 1, n), y: scale.y(run.value) }, trend.unit) : ''
  return { reference, points: rings.join('') + diamond }
}

/** The page's one marker definition, the point every trend line draws at each run. */
export function trendDefs(): string {
  return (
    `<svg class="defs" aria-hidden="true" focusable="false"><marker id="${TREND_POINT_ID}" markerUnits="userSpaceOnUse"` +
    ` viewBox="-5 -5 10 10" markerWidth="10" markerHeight="10" overflow="visible"><circle class="point" r="3.5"/></marker></svg>`
  )
}
