/**
 * The serving curve of a concurrency sweep (docs/reading-the-report.md, "Serving curves") as one inline SVG: output
 * tok/s (y) against per-user tok/s (x), one path per target and side (baseline dashed with hollow points, current
 * solid), a point at each concurrency measured. Both axes start at 0 and end at a round number at or above the largest
 * value, so a path's height and slope are the figures' own proportions: a throughput curve is read from 0, and a 2%
 * difference never fills the chart. Coordinates are rounded to 0.1 of the 640 × 360 view box; `curveScale` is the one
 * mapping from figures to them, and the page says nothing a reader could not recompute from the ticks.
 */
import { escapeHtml } from './escape.js'

export const CURVE = { width: 640, height: 360, left: 64, right: 24, top: 16, bottom: 52 } as const

export type CurveSide = 'baseline' | 'current'

export interface CurvePoint {
  concurrency: number
  /** Per-user tok/s: the x value. */
  perUser: number
  /** Output tok/s: the y value. */
  output: number
}

export interface CurveLine {
  /** The target id, what tests and the legend name the path by. */
  target: string
  side: CurveSide
  /** One of the page's fixed colours (no text from results). */
  color: string
  /** Ascending concurrency. */
  points: readonly CurvePoint[]
}

export interface Axis {
  /** The axis ends here: 0 … max. */
  max: number
  step: number
  ticks: number[]
}

/** Ticks 0, step, 2·step … up to the first multiple of step at or above `max`; step is 1, 2 or 5 × 10ⁿ, at most `most` steps. */
export function niceAxis(max: number, most = 5): Axis {
  const top = Number.isFinite(max) && max > 0 ? max : 1
  const raw = top / most
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw * (1 - 1e-12))!
  const steps = Math.ceil(top / step - 1e-9)
  const ticks = Array.from({ length: steps + 1 }, (_, i) => Number((i * step).toPrecision(12)))
  return { max: ticks[steps], step, ticks }
}

export interface CurveScale {
  x: Axis
  y: Axis
  /** Per-user tok/s → x in the view box. */
  px(perUser: number): number
  /** Output tok/s → y in the view box (0 at the bottom of the plot). */
  py(output: number): number
}

const tenth = (v: number) => Math.round(v * 10) / 10

/** The scale of a chart whose largest per-user and output figures are `maxPerUser` and `maxOutput`. */
export function curveScale(maxPerUser: number, maxOutput: number): CurveScale {
  const x = niceAxis(maxPerUser)
  const y = niceAxis(maxOutput)
  const width = CURVE.width - CURVE.left - CURVE.right
  const height = CURVE.height - CURVE.top - CURVE.bottom
  return {
    x,
    y,
    px: (v) => tenth(CURVE.left + (v / x.max) * width),
    py: (v) => tenth(CURVE.top + height - (v / y.max) * height),
  }
}

/** The scale that holds every point of `lines`. */
export function scaleOf(lines: readonly CurveLine[]): CurveScale {
  const points = lines.flatMap((l) => l.points)
  return curveScale(Math.max(0, ...points.map((p) => p.perUser)), Math.max(0, ...points.map((p) => p.output)))
}

/** `1,200`, `0.5`: as many decimals as the step needs. */
function tickText(value: number, step: number): string {
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9))
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
}

function axes(s: CurveScale): string {
  const { left, top, width, height, bottom } = CURVE
  const base = height - bottom
  const right = width - CURVE.right
  const xs = s.x.ticks.map(
    (t) =>
      `<line class="grid" x1="${s.px(t)}" x2="${s.px(t)}" y1="${top}" y2="${base}"/>` +
      `<text class="tick" x="${s.px(t)}" y="${base + 16}" text-anchor="middle">${tickText(t, s.x.step)}</text>`,
  )
  const ys = s.y.ticks.map(
    (t) =>
      `<line class="grid" x1="${left}" x2="${right}" y1="${s.py(t)}" y2="${s.py(t)}"/>` +
      `<text class="tick" x="${left - 6}" y="${s.py(t) + 4}" text-anchor="end">${tickText(t, s.y.step)}</text>`,
  )
  return (
    `<g class="x-axis">${xs.join('')}</g><g class="y-axis">${ys.join('')}</g>` +
    `<line class="axis" x1="${left}" x2="${right}" y1="${base}" y2="${base}"/>` +
    `<line class="axis" x1="${left}" x2="${left}" y1="${top}" y2="${base}"/>` +
    `<text class="title" x="${tenth((left + right) / 2)}" y="${height - 8}" text-anchor="middle">per-user tok/s</text>` +
    `<text class="title" transform="translate(14 ${tenth((top + base) / 2)}) rotate(-90)" text-anchor="middle">output tok/s</text>`
  )
}

function line(l: CurveLine, s: CurveScale): string {
  const target = escapeHtml(l.target)
  const d = l.points.map((p, i) => `${i ? 'L' : 'M'}${s.px(p.perUser)} ${s.py(p.output)}`).join('')
  const points = l.points.map((p) => {
    const tip = escapeHtml(
      `${l.target} · ${l.side} · concurrency ${p.concurrency}: ${p.output.toFixed(1)} output tok/s, ${p.perUser.toFixed(2)} per-user tok/s`,
    )
    const label =
      l.side === 'current'
        ? `<text class="point-label" x="${tenth(s.px(p.perUser) + 6)}" y="${tenth(s.py(p.output) - 6)}">c${p.concurrency}</text>`
        : ''
    return `<circle class="point" data-target="${target}" data-side="${l.side}" data-concurrency="${p.concurrency}" cx="${s.px(p.perUser)}" cy="${s.py(p.output)}" r="3.5"><title>${tip}</title></circle>${label}`
  })
  return `<g class="${l.side}" style="--c:${l.color}"><path data-target="${target}" data-side="${l.side}" d="${d}"/>${points.join('')}</g>`
}

/** The chart's SVG; `label` is its accessible name (plain text, escaped here). */
export function servingCurveSvg(lines: readonly CurveLine[], label: string): string {
  const s = scaleOf(lines)
  const ordered = [...lines.filter((l) => l.side === 'baseline'), ...lines.filter((l) => l.side === 'current')]
  return (
    `<svg class="curve" viewBox="0 0 ${CURVE.width} ${CURVE.height}" role="img" aria-label="${escapeHtml(label)}"` +
    ` data-x-max="${s.x.max}" data-y-max="${s.y.max}">${axes(s)}${ordered.map((l) => line(l, s)).join('')}</svg>`
  )
}
