/**
 * The serving curves of a page (docs/reading-the-report.md, "Serving curves"): per concurrency sweep (a scenario whose
 * cells are `<scenario>@c<N>`), one chart with two paths per target, its current figures and its baseline's. The
 * current point of a cell is its steady `output_tps` and `per_user_tps`; a baseline point is the baseline's output
 * tok/s of the same cell, and its per-user tok/s that divided by the point's concurrency, as a closed-loop round
 * computes it (bench/rounds/round.ts). Which baseline is the page's to say: the run's leaderboard takes the reference its
 * verdicts used, the dashboard the previous run in the history. Every text from results (target ids, model names,
 * runtimes) is escaped.
 */
import { metricKey } from '../core/metrics.js'
import type { MetricsBlock } from '../core/measurements.js'
import type { CellResult, HistoryEntry } from '../core/results.js'
import { runtimeLabel } from '../core/runtime.js'
import { sweepPoint } from '../core/sweep.js'
import { escapeHtml } from './escape.js'
import { servingCurveSvg, type CurveLine, type CurvePoint } from './serving-curve.js'

type Measured = CellResult & { metrics: MetricsBlock }

/** Colours that read on the light and the dark scheme alike; targets past the eighth reuse them (the legend names each). */
const PALETTE = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#bc4c00', '#1b7c83', '#bf3989', '#6e7781']

export interface CurveTarget {
  id: string
  color: string
  model: string
  runtime: string
  /** False when no point of this target had a baseline figure. */
  baseline: boolean
}

export interface SweepCurve {
  /** The scenario as the file names it (`chat-1k`). */
  sweep: string
  inputTokens: number
  outputTokens: number
  concurrencies: number[]
  targets: CurveTarget[]
  lines: CurveLine[]
}

/** The baseline's output tok/s of a sweep point's cell; undefined where the page has none for it. */
export type BaselineOutput = (cell: Measured) => number | undefined

const finite = (v: number | undefined): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0

type Point = { cell: Measured; concurrency: number }

/** The page's sweeps, in the order their first point appears; each sweep's targets likewise. */
export function sweepCurves(cells: readonly Measured[], baselineOutput: BaselineOutput): SweepCurve[] {
  const sweeps = new Map<string, Map<string, Point[]>>()
  const colors = new Map<string, string>()
  for (const cell of cells) {
    const point = sweepPoint(cell.scenario)
    if (!point) continue
    if (!colors.has(cell.target)) colors.set(cell.target, PALETTE[colors.size % PALETTE.length])
    const targets = sweeps.get(point.base) ?? new Map<string, Point[]>()
    targets.set(cell.target, [...(targets.get(cell.target) ?? []), { cell, concurrency: point.concurrency }])
    sweeps.set(point.base, targets)
  }
  return [...sweeps].map(([sweep, targets]) => {
    const curve: SweepCurve = { sweep, inputTokens: 0, outputTokens: 0, concurrencies: [], targets: [], lines: [] }
    for (const [target, unsorted] of targets) {
      const points = [...unsorted].sort((a, b) => a.concurrency - b.concurrency)
      const first = points[0].cell
      const { current, baseline } = targetLines(target, points, colors.get(target)!, baselineOutput)
      curve.inputTokens = first.workload.inputTokens
      curve.outputTokens = first.workload.outputTokens
      curve.concurrencies.push(...points.map((p) => p.concurrency))
      curve.targets.push({
        id: target,
        color: current.color,
        model: first.model || first.target,
        runtime: runtimeLabel(first),
        baseline: baseline.points.length > 0,
      })
      curve.lines.push(current, ...(baseline.points.length ? [baseline] : []))
    }
    curve.concurrencies = [...new Set(curve.concurrencies)].sort((a, b) => a - b)
    return curve
  })
}

/** A target's two paths over its points (ascending concurrency): what it measured, and its baseline where there is one. */
function targetLines(target: string, points: readonly Point[], color: string, baselineOutput: BaselineOutput) {
  const current: CurvePoint[] = points
    .filter(({ cell }) => finite(cell.metrics.output_tps) && finite(cell.metrics.per_user_tps))
    .map(({ cell, concurrency }) => ({
      concurrency,
      perUser: cell.metrics.per_user_tps,
      output: cell.metrics.output_tps,
    }))
  const baseline: CurvePoint[] = points.flatMap(({ cell, concurrency }) => {
    const output = baselineOutput(cell)
    return finite(output) ? [{ concurrency, perUser: output / concurrency, output }] : []
  })
  const line = (side: CurveLine['side'], pts: CurvePoint[]): CurveLine => ({ target, side, color, points: pts })
  return { current: line('current', current), baseline: line('baseline', baseline) }
}

export interface CurveLabels {
  /** The solid paths, plain text: `this run`. */
  current: string
  /** The dashed paths, plain text: `baseline 1a2b3c4`. */
  baseline: string
  /** Under the heading, HTML the page wrote (no text from results). */
  note: string
}

function legend(curve: SweepCurve, labels: CurveLabels): string {
  const targets = curve.targets.map(
    (t) =>
      `<li><span class="swatch" style="--c:${t.color}"></span><code>${escapeHtml(t.id)}</code> <span class="dim">${escapeHtml(t.model)} · ${escapeHtml(t.runtime)}${t.baseline ? '' : ' · no baseline'}</span></li>`,
  )
  const sides = [
    `<li><span class="swatch key"></span>${escapeHtml(labels.current)}</li>`,
    `<li><span class="swatch key dashed"></span>${escapeHtml(labels.baseline)}</li>`,
  ]
  return `<ul class="legend">${[...targets, ...sides].join('')}</ul>`
}

function figure(curve: SweepCurve, labels: CurveLabels): string {
  const name = escapeHtml(curve.sweep)
  const shape = `${curve.inputTokens} → ${curve.outputTokens} tokens, concurrency ${curve.concurrencies.join(', ')}`
  const svg = servingCurveSvg(curve.lines, `Serving curve of ${curve.sweep}: output tok/s against per-user tok/s`)
  return `<figure class="sweep" data-sweep="${name}"><figcaption><strong>${name}</strong> <span class="dim">${escapeHtml(shape)}</span></figcaption>${svg}${legend(curve, labels)}</figure>`
}

/** The page's section of serving curves; empty when no cell is a sweep point. */
export function curvesSection(curves: readonly SweepCurve[], labels: CurveLabels): string {
  if (!curves.length) return ''
  return `<section id="serving-curves">
<h2>Serving curves</h2>
<p class="dim">${labels.note}</p>
<div class="curves">
${curves.map((c) => figure(c, labels)).join('\n')}
</div>
</section>
`
}

/**
 * Per sweep point of `cells`, its output tok/s in the run before the latest one that measured it, from the history
 * (oldest first), with that run's commit: the dashboard's baseline side.
 */
export function previousRuns(
  history: readonly HistoryEntry[],
  cells: readonly CellResult[],
): Map<string, { output: number; sha: string }> {
  const key = metricKey('output-throughput', 'mean')
  const previous = new Map<string, { output: number; sha: string }>()
  for (const cell of cells) {
    if (!sweepPoint(cell.id)) continue
    const runs = history.flatMap((e) => {
      const v = e.cells[cell.id]?.[key]?.steady
      return finite(v) ? [{ output: v, sha: e.sha }] : []
    })
    const before = runs.at(-2)
    if (before) previous.set(cell.id, before)
  }
  return previous
}

/** The pages' style for the curves, on top of the leaderboard's. */
export const CURVE_CSS = `
.curves { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 30rem), 1fr)); gap: 1rem; }
figure.sweep { margin: 0; min-width: 0; border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
figure.sweep figcaption { font-size: .95rem; margin-bottom: .25rem; }
svg.curve { display: block; width: 100%; max-width: 48rem; height: auto; }
svg.curve .grid { stroke: var(--line); stroke-width: 1; }
svg.curve .axis { stroke: var(--dim); stroke-width: 1; }
svg.curve text { fill: var(--dim); font-size: 12px; }
svg.curve text.title { fill: var(--fg); font-size: 13px; }
svg.curve path { fill: none; stroke: var(--c); stroke-width: 2; }
svg.curve .baseline path { stroke-dasharray: 6 4; }
svg.curve .point { fill: var(--c); stroke: var(--c); stroke-width: 1.5; }
svg.curve .baseline .point { fill: Canvas; }
svg.curve .point-label { fill: var(--c); font-size: 11px; }
.legend { list-style: none; padding: 0; margin: .25rem 0 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .85rem; overflow-wrap: anywhere; }
.swatch { display: inline-block; width: 1.6rem; vertical-align: middle; border-top: 3px solid var(--c); margin-right: .35rem; }
.swatch.key { --c: var(--fg); }
.swatch.dashed { border-top-style: dashed; }
`
