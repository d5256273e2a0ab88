/** Collapsed detail sections about the measurements: verdict notes, every metric, rounds, flags. */
import { markdownTable } from 'markdown-table'
import { DISTRIBUTION_METRICS, type MetricsBlock, type RoundResult } from '../../core/measurements.js'
import type { CellResult, MetricVerdict } from '../../core/results.js'
import { isDrop } from '../../core/metrics.js'
import { clip, details, escapeText } from '../escape.js'
import { EMPTY, formatNumber, formatPercent, plural } from '../../core/format.js'
import { STATUS_MARK } from '../marks.js'
import { environmentNote } from './host-section.js'
import { splitLines } from './split-lines.js'
import { gpuLines } from './gpu-lines.js'
import { formatSlo } from '../../core/workload.js'
import { serverLines } from './server-lines.js'
import { recordLines } from './record-lines.js'
import { conversationLine, turnLines } from './turn-lines.js'
import { boxLines, disturbedText } from './box-lines.js'
import { footnoted, notesBlock } from './reasons.js'
import { pooledNote, reasonWithValues } from './figure-text.js'
import { rooflineGaps, rooflineLine } from '../roofline-text.js'

const TABLE = { alignDelimiters: false } as const

/** The smallest loss a relative metric's measurements could detect (verdict.mde), where its reason does not say it. */
function detects(m: MetricVerdict): string {
  if (m.mde === undefined || isDrop(m.metric) || m.reason.includes('could detect')) return ''
  return ` · could detect ≥ ${formatPercent(m.mde)}`
}

/**
 * Why each cell that did not simply pass got its status, with every gated metric's reason; a clause several cells
 * repeat (the A/B that did not run, the baseline's source) is said once, as a note under the list.
 */
export function verdictNotes(cells: readonly CellResult[]): string | undefined {
  const shown = cells.filter(
    (c) => c.verdict.status !== 'pass' || Object.keys(c.verdict.metrics).length || c.verdict.disturbed?.length,
  )
  if (!shown.length) return undefined
  const { lines, notes } = footnoted(
    shown.map((c) => {
      const reasons = Object.values(c.verdict.metrics).map(
        (m) => `${STATUS_MARK[m.status]} ${reasonWithValues(m)}${detects(m)}`,
      )
      const note = c.verdict.note ? clip(c.verdict.note, 600) : ''
      const environment = environmentNote(c)
      return [...reasons, note, environment ? clip(environment, 400) : '', disturbedText(c) ?? ''].filter(Boolean)
    }),
  )
  // A cell with nothing of its own to say (a first run's new cell: its note was the run's, run-notes.ts) is not listed.
  const list = shown.flatMap((c, i) =>
    lines[i] ? [`- ${STATUS_MARK[c.verdict.status]} **${escapeText(c.id)}**: ${lines[i]}`] : [],
  )
  if (!list.length) return undefined
  const block = notesBlock(notes)
  return details(`Verdicts (${plural(list.length, 'cell')})`, [list.join('\n'), block].filter(Boolean).join('\n\n'))
}

/** Every statistic of every per-request distribution, plus the round-level throughputs. */
export function metricsSection(cells: readonly CellResult[]): string | undefined {
  const measured = cells.filter((c) => c.metrics)
  if (!measured.length) return undefined
  const blocks = measured.map((c) =>
    [
      `**${escapeText(c.id)}**${pooledNote(c)}`,
      metricsTable(c.metrics!),
      scalars(c.metrics!),
      roofline(c),
      goodputLine(c),
      conversationLine(c),
      ingestedLine(c),
    ]
      .filter(Boolean)
      .join('\n\n'),
  )
  // Why a cell has no roofline, once for every cell it applies to.
  const gaps = rooflineGaps(measured).map((line) => `- ${escapeText(clip(line, 600))}`)
  return details(
    `All metrics (steady state, ${plural(measured.length, 'cell')})`,
    [...blocks, gaps.join('\n')].filter(Boolean).join('\n\n'),
  )
}

/** `decode 21.9 tok/s · 64 % of roofline · ceiling …`, for a cell whose box and model were known. */
function roofline(c: CellResult): string | undefined {
  const line = rooflineLine(c)
  return line && escapeText(clip(line, 600))
}

/** For a cell another tool measured: which tool, and what of our figures it could not give. */
function ingestedLine(c: CellResult): string | undefined {
  const source = c.ingested
  if (!source) return undefined
  const unmapped = source.unmapped.length ? `; not mapped: ${source.unmapped.join('; ')}` : ''
  return `measured by ${escapeText(source.tool)}${escapeText(clip(unmapped, 800))}`
}

function metricsTable(m: MetricsBlock): string {
  const rows = DISTRIBUTION_METRICS.map((key) => {
    const s = m[key]
    return [key, ...[s?.mean, s?.p50, s?.p90, s?.p99, s?.std, s?.min, s?.max].map(formatNumber)]
  })
  return markdownTable([['metric', 'mean', 'p50', 'p90', 'p99', 'std', 'min', 'max'], ...rows], {
    ...TABLE,
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  })
}

function scalars(m: MetricsBlock): string {
  const energy = m.energy_j_per_token === undefined ? '' : ` · ${formatNumber(m.energy_j_per_token)} J/token`
  return `output ${formatNumber(m.output_tps)} tok/s · total ${formatNumber(m.total_tps)} tok/s · per user ${formatNumber(m.per_user_tps)} tok/s · ${formatNumber(m.request_tps)} req/s${energy}`
}

/** `goodput 96% · 1.90 good req/s (SLO: TTFT ≤ 2s, TPOT ≤ 80ms)`, for a cell whose scenario has an `slo`. */
function goodputLine(c: CellResult): string | undefined {
  const m = c.metrics
  if (!c.workload.slo || m?.goodput === undefined) return undefined
  const rate = m.request_goodput === undefined ? '' : ` · ${formatNumber(m.request_goodput)} good req/s`
  return `goodput ${formatPercent(m.goodput)}${rate} (SLO: ${formatSlo(c.workload.slo)})`
}

/** Per-round key figures and failed-request reasons, so a cold first round or one bad round is visible. */
export function roundsSection(cells: readonly CellResult[]): string | undefined {
  const withRounds = cells.filter((c) => c.rounds.length)
  if (!withRounds.length) return undefined
  const blocks = withRounds.map((c) =>
    [
      `**${escapeText(c.id)}**${pooledNote(c)}`,
      roundsTable(c.rounds),
      splitLines(c.rounds),
      gpuLines(c.rounds),
      serverLines(c.rounds),
      boxLines(c.rounds),
      recordLines(c),
      turnLines(c.rounds),
    ]
      .filter(Boolean)
      .join('\n\n'),
  )
  return details(`Rounds (${plural(withRounds.length, 'cell')})`, blocks.join('\n\n'))
}

function roundsTable(rounds: readonly RoundResult[]): string {
  // Goodput only where the scenario has an slo, so the table of every other cell keeps its columns.
  const goodput = rounds.some((r) => r.metrics?.goodput !== undefined)
  const rows = rounds.map((r) => [
    String(r.index),
    r.steady ? 'yes' : 'discarded',
    String(r.requests),
    String(r.errors),
    formatNumber(r.metrics?.decode_tps?.mean),
    formatNumber(r.metrics?.ttft_ms?.mean),
    formatNumber(r.metrics?.tpot_ms?.mean),
    formatNumber(r.metrics?.output_tps),
    ...(goodput ? [r.metrics?.goodput === undefined ? EMPTY : formatPercent(r.metrics.goodput)] : []),
    formatNumber(r.durationMs / 1000),
    r.errorReasons?.length
      ? escapeText(clip(r.errorReasons.map((e) => `${e.reason} ×${e.count}`).join('; '), 300))
      : EMPTY,
  ])
  const header = [
    'round',
    'steady',
    'requests',
    'errors',
    'decode tok/s',
    'TTFT ms',
    'TPOT ms',
    'output tok/s',
    ...(goodput ? ['goodput'] : []),
    'duration s',
    'errors seen',
  ]
  const align = ['r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', ...(goodput ? ['r'] : []), 'r', 'l']
  return markdownTable([header, ...rows], { ...TABLE, align })
}

/** Cells whose workload did not come out as asked (they are never compared). */
export function flagsSection(cells: readonly CellResult[]): string | undefined {
  const flagged = cells.filter((c) => c.flags.length)
  if (!flagged.length) return undefined
  const lines = flagged.map(
    (c) => `- **${escapeText(c.id)}**: ${c.flags.map((f) => escapeText(clip(f, 200))).join(', ')}`,
  )
  return details(`Flags (${plural(flagged.length, 'cell')})`, lines.join('\n'))
}

export function acceptance(cell: CellResult): string | undefined {
  const s = cell.specDecode
  if (!s) return undefined
  const parts = [
    s.acceptanceRate === undefined ? undefined : `acceptance ${formatPercent(s.acceptanceRate)}`,
    s.acceptanceLength === undefined ? undefined : `${formatNumber(s.acceptanceLength)} tokens per step`,
    s.draftTokens === undefined ? undefined : `${s.acceptedTokens ?? '?'} of ${s.draftTokens} drafted tokens accepted`,
  ].filter(Boolean)
  return `${parts.join(', ') || 'no counters'} (${escapeText(s.source)})`
}
