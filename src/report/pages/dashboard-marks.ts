/**
 * The marks a trend chart draws on top of its line: this run's point when the run is not a default-branch run (a
 * pull request's or a local compare run: a diamond after the history, never a vertex of the history's line), the
 * points whose verdict was a regression (a red ring), and the baseline's level the verdicts compared with. Each
 * carries a `<title>`, so a reader who hovers or uses a screen reader hears what it is.
 */
import { formatNumber } from '../../core/format.js'
import { escapeHtml } from '../escape.js'

/** This run's figure on a chart, after the history. */
export interface RunPoint {
  value: number | null
  /** `this run (PR #12)`. */
  label: string
  regressed: boolean
  /** Its verdict's words for the metric: `decode tok/s −9.8% (limit 5%)`. */
  reason?: string
}

/** A history point the stored baseline's verdict found regressed. */
export interface RegressedPoint {
  index: number
  reason?: string
}

/** Where a mark sits: the view box's x and y. */
export interface At {
  x: number
  y: number
}

/** This run's diamond, red when its verdict regressed. */
export function runMark(point: RunPoint, at: At, unit: string): string {
  const what = `${point.label}: ${formatNumber(point.value)} ${unit}`
  const title = [what, point.regressed ? 'regression' : '', point.reason ?? ''].filter(Boolean).join(' · ')
  const cls = point.regressed ? 'run-point regressed' : 'run-point'
  return `<path class="${cls}" d="M${at.x} ${at.y - 8}l8 8-8 8-8-8z"><title>${escapeHtml(title)}</title></path>`
}

/** A ring around a history point whose run's verdict was a regression. */
export function regressedMark(point: RegressedPoint, at: At): string {
  const title = ['regression', point.reason ?? ''].filter(Boolean).join(' · ')
  return `<circle class="regressed-ring" cx="${at.x}" cy="${at.y}" r="8"><title>${escapeHtml(title)}</title></circle>`
}

/** The level the verdicts compared with, across the plot. */
export function referenceLine(y: number, left: number, width: number, title: string): string {
  return `<path class="reference" d="M${left} ${y}h${width}"><title>${escapeHtml(title)}</title></path>`
}

/** The page's key to the marks, above the cards. */
export function marksLegend(runLabel: string | undefined): string {
  const run = runLabel
    ? ` · <span class="key run-key" aria-hidden="true">◆</span> ${escapeHtml(runLabel)}, not part of the history`
    : ''
  return (
    `<p class="legend"><span class="key line-key" aria-hidden="true">●</span> default-branch run${run}` +
    ` · <span class="key regressed-key" aria-hidden="true">◯</span> regressed (its verdict)` +
    ` · <span class="key reference-key" aria-hidden="true">—</span> the baseline's level</p>`
  )
}
