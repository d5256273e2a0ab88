/**
 * The same-box A/B in the report (docs/same-box.md): one line at the top with what ran against which base commit and
 * what the base arms cost, or why no A/B ran; and a section with each tested cell's two arms next to the stored
 * baseline it replaced, so a reader sees both what this box measured and what the history said.
 */
import { formatDelta, formatDuration, formatPercent, plural } from '../../core/format.js'
import { METRICS, isCeiling, metricLabel } from '../../core/metrics.js'
import type { CellResult, MetricVerdict } from '../../core/results.js'
import { clip, code, escapeText } from '../escape.js'
import { environmentNote } from './host-section.js'
import { STATUS_MARK } from '../marks.js'

/** Reasons shown in the header before "and N more". */
const SHOWN_REASONS = 3

/** Base-arm engine time of the run: each target's once, finished or not (it counts against `ab-budget` either way). */
function baseArmsMs(cells: readonly CellResult[]): number {
  const byTarget = new Map(cells.flatMap((c) => (c.ab?.baseMs === undefined ? [] : [[c.target, c.ab.baseMs] as const])))
  return [...byTarget.values()].reduce((sum, ms) => sum + ms, 0)
}

/** The header line: the A/B's base, launches and cost, and why it did not run where it did not. */
export function abHeader(cells: readonly CellResult[]): string | undefined {
  const ran = cells.filter((c) => c.ab?.status === 'ran')
  const lines: string[] = []
  const baseMs = baseArmsMs(cells)
  if (ran.length) {
    const targets = new Set(ran.map((c) => c.target))
    const bases = [...new Set(ran.map((c) => c.ab!.base ?? ''))].map((sha) => code(sha.slice(0, 7)))
    const launches = [...new Set(ran.map((c) => c.ab!.launches ?? 0))].join('/')
    lines.push(
      `Same-box A/B against the base ${bases.join(', ')} (ABBA × ${launches}): ${plural(ran.length, 'cell')} of ${plural(targets.size, 'target')}, base arms ${formatDuration(baseMs)} of engine time`,
    )
  } else if (baseMs > 0) lines.push(`Same-box A/B: base arms ${formatDuration(baseMs)} of engine time, none finished`)
  const notRun = new Map<string, number>()
  for (const c of cells)
    if (c.ab?.status === 'not-run') notRun.set(c.ab.reason ?? '', (notRun.get(c.ab.reason ?? '') ?? 0) + 1)
  const reasons = [...notRun.entries()]
  for (const [reason, count] of reasons.slice(0, SHOWN_REASONS))
    lines.push(`Same-box A/B not run for ${plural(count, 'cell')}: ${escapeText(clip(reason, 300))}`)
  if (reasons.length > SHOWN_REASONS)
    lines.push(`… and ${reasons.length - SHOWN_REASONS} more reasons (see results.json)`)
  return lines.length ? lines.join('<br>\n') : undefined
}

/** A metric's two arms: `decode tok/s: base 21.8 → PR 19.1, −12.4 % ± 1.1 %`. */
export function abFigures(m: MetricVerdict): string {
  const info = METRICS[m.metric]
  const band = m.band === undefined ? '' : ` ± ${formatPercent(m.band)}`
  return `${metricLabel(m.metric, m.stat)}: base ${info.format(m.baseline)} → PR ${info.format(m.current)}, ${formatDelta(m.delta)}${band}`
}

/** What the stored baseline said of the cell the A/B re-judged. */
function storedLine(cell: CellResult): string {
  const stored = cell.ab?.stored
  if (!stored) return ''
  const figures = Object.values(stored.metrics)
    .filter((m) => !isCeiling(m.metric) && m.metric in cell.verdict.metrics)
    .map((m) => `${metricLabel(m.metric, m.stat)} ${METRICS[m.metric].format(m.baseline)} (${formatDelta(m.delta)})`)
  const environment = environmentNote(cell)
  return [`stored baseline: ${stored.status}${figures.length ? `, ${figures.join(', ')}` : ''}`, environment]
    .filter(Boolean)
    .join('; ')
}

/** One line per cell the A/B decided: its verdict, both arms of each gated metric, and the stored baseline's view. */
export function abSection(cells: readonly CellResult[]): string | undefined {
  const ran = cells.filter((c) => c.ab?.status === 'ran')
  if (!ran.length) return undefined
  const lines = ran.map((cell) => {
    // A ceiling that held on both arms (no failed requests) says nothing a reader needs here.
    const metrics = Object.values(cell.verdict.metrics)
      .filter((m) => !isCeiling(m.metric) || m.status !== 'pass')
      .map((m) => `${STATUS_MARK[m.status]} ${escapeText(abFigures(m))}`)
    const equal = cell.verdict.status === 'pass' ? 'base and PR equal on this box within the limits; ' : ''
    const stored = storedLine(cell)
    const cost = cell.ab?.baseMs === undefined ? '' : `; base arm ${formatDuration(cell.ab.baseMs)}`
    return `- ${STATUS_MARK[cell.verdict.status]} **${escapeText(cell.id)}**: ${equal}${metrics.join('; ')} (${escapeText(clip(stored, 400))}${cost})`
  })
  return `#### Same-box A/B\n\n${lines.join('\n')}`
}
