/**
 * The report of a bisection (`mode: bisect`, docs/bisect.md): per target, what the probes name — the culprit and
 * its pull request, the steps, or why neither — the paired change on each side of the culprit, and every probe with
 * its figures. Everything from git, the matrix file or an engine is escaped; shas are shown short and linked when the
 * repository's URL is known.
 */
import type { BisectProbe, BisectRecord, ProbeSign } from '../../core/bisect-record.js'
import { formatDelta, formatDuration, formatPercent, plural } from '../../core/format.js'
import { metricLabel } from '../../core/metrics.js'
import type { CellVerdict } from '../../core/verdicts.js'
import { clip, code, escapeText, safeUrl } from '../escape.js'

export interface BisectContext {
  /** `https://github.com/o/r`: commits and pull requests link there. */
  repoUrl?: string
  runUrl?: string
}

const HEADLINE: Record<BisectRecord['outcome'], string> = {
  culprit: '🎯 culprit found',
  steps: '🪜 several steps',
  'not-reproduced': '🟰 does not reproduce on this box',
  undecided: '❔ undecided',
  budget: '⏳ range narrowed, not to one commit',
  error: '❌ could not bisect',
}

const SIGN: Record<ProbeSign, string> = {
  past: 'worse beyond the limit',
  within: 'within the limit',
  undecided: 'undecided',
  skip: 'skipped',
  error: 'error',
}

/** The whole bisection report. */
export function renderBisect(records: readonly BisectRecord[], ctx: BisectContext): string {
  const parts = ['## llm-bench-gate: bisection', '']
  if (!records.length)
    parts.push('No launched target to bisect: `only` selected none, or every target is external.', '')
  for (const r of records) parts.push(...targetSection(r, ctx))
  if (ctx.runUrl && safeUrl(ctx.runUrl)) parts.push(`[Run log](${safeUrl(ctx.runUrl)})`, '')
  return parts.join('\n')
}

function targetSection(r: BisectRecord, ctx: BisectContext): string[] {
  const sha = (s: string) => commitLink(s, ctx)
  const launches = r.probes.reduce((n, p) => n + 2 * p.launches, 0)
  const lines = [
    `### ${escapeText(r.target)}: ${HEADLINE[r.outcome]}`,
    '',
    `${r.cells.map((c) => code(c)).join(', ') || 'no cell'}: ${plural(Math.max(0, r.commits.length - 1), 'first-parent commit')} after ${sha(r.good)} up to ${sha(r.bad)}; ${plural(r.probes.length, 'probe')}, ${plural(launches, 'launch', 'launches')}, engine time ${formatDuration(r.engineMs)}.`,
    '',
    escapeText(clip(r.reason, 2000)),
    '',
  ]
  if (r.culprit) lines.push(...culpritLines(r, r.culprit, ctx))
  if (r.steps && r.steps.length > 1) lines.push(`**Steps**: ${r.steps.map(sha).join(', ')}`, '')
  if (r.range) lines.push(`**Range left**: after ${sha(r.range.after)}, up to ${sha(r.range.through)}`, '')
  if (r.skipped?.length)
    lines.push(`**Skipped** (did not launch, or did not define the cells): ${r.skipped.map(sha).join(', ')}`, '')
  if (r.issue) lines.push(issueLine(r.issue), '')
  if (r.probes.length) lines.push(...probeTable(r.probes, ctx), '')
  return lines
}

/**
 * The culprit, its pull request, and the paired change on each side of it: the nearest commit before it measured
 * within the limit of the good end, the culprit against the good end, and the culprit against the commit before it.
 */
function culpritLines(r: BisectRecord, culprit: string, ctx: BisectContext): string[] {
  const pull = r.pull && safeUrl(r.pull.url)
  const pr = r.pull && pull ? ` — [#${r.pull.number} ${escapeText(clip(r.pull.title, 200))}](${pull})` : ''
  const at = r.commits.indexOf(culprit)
  const below = r.probes.filter((p) => p.sign === 'within' && p.role !== 'rest' && r.commits.indexOf(p.sha) < at)
  const sides: Array<[string, BisectProbe | undefined]> = [
    ['before it', below.sort((a, b) => r.commits.indexOf(b.sha) - r.commits.indexOf(a.sha))[0]],
    ['at it', r.probes.find((p) => p.sha === culprit && p.sign === 'past' && p.role === 'search')],
    ['its own step', r.probes.find((p) => p.sha === culprit && p.role === 'step')],
  ]
  const lines = [`**Culprit**: ${commitLink(culprit, ctx)}${pr}`, '']
  for (const [label, p] of sides)
    if (p) lines.push(`- ${label}: ${commitLink(p.sha, ctx)} against ${commitLink(p.against, ctx)}: ${changes(p)}`)
  // The engine counters that moved with it: its own step where one was measured, else against the good end.
  const moved = sides[2][1] ?? sides[1][1]
  if (moved) lines.push(`- engine counters that moved with it: ${countersOf(moved)}`)
  lines.push('')
  return lines
}

function countersOf(p: BisectProbe): string {
  const moved = Object.entries(p.cells).flatMap(([id, v]) =>
    (v.serverChanges ?? []).map((c) => `${code(id)} ${escapeText(clip(c, 200))}`),
  )
  return moved.length ? moved.join('; ') : 'none (or the engine exposes none)'
}

function issueLine(issue: NonNullable<BisectRecord['issue']>): string {
  if ('problem' in issue) return `⚠️ The regression issue could not be written: ${escapeText(clip(issue.problem, 300))}`
  const url = safeUrl(issue.url)
  return url ? `Regression issue ${issue.action}: ${url}` : ''
}

/** Every probe, in the order it ran. */
function probeTable(probes: readonly BisectProbe[], ctx: BisectContext): string[] {
  const rows = probes.map(
    (p, i) =>
      `| ${i + 1} | ${p.role} | ${commitLink(p.sha, ctx)} | ${commitLink(p.against, ctx)} | ${SIGN[p.sign]} | ${changes(p)} | ${p.launches} | ${formatDuration(p.engineMs)} |`,
  )
  return [
    '| # | probe | commit | against | verdict | change (paired, ± the band) | launches per arm | engine time |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ]
}

/** A probe's gated changes per cell, or why it has none. */
function changes(p: BisectProbe): string {
  const cells = Object.entries(p.cells)
  if (!cells.length) return escapeText(clip(p.reason ?? '—', 300))
  const one = cells.length === 1
  return cells.map(([id, v]) => `${one ? '' : `${code(id)}: `}${metricChanges(v)}`).join('; ')
}

function metricChanges(v: CellVerdict): string {
  const shown = Object.values(v.metrics).flatMap((m) => {
    if (!m || m.delta === null) return []
    const band = m.band !== undefined ? ` ± ${formatPercent(m.band)}` : ''
    const mark = m.status === 'regression' ? '**' : ''
    return [`${mark}${metricLabel(m.metric, m.stat)} ${formatDelta(m.delta)}${band}${mark}`]
  })
  return shown.join(', ') || escapeText(clip(v.note ?? v.status, 300))
}

function commitLink(sha: string, ctx: BisectContext): string {
  const short = /^[0-9a-f]{7,64}$/.test(sha) ? sha.slice(0, 7) : escapeText(clip(sha, 40))
  const base = ctx.repoUrl && safeUrl(ctx.repoUrl)
  return base && /^[0-9a-f]{40,64}$/.test(sha) ? `[\`${short}\`](${base}/commit/${sha})` : code(short)
}
