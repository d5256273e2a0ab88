/** The top of the report: verdict, counts, and what was compared with what. */
import type { BaselineRef, ResultsFile } from '../../core/results.js'
import { clip, code, escapeText, safeUrl } from '../escape.js'
import { plural } from '../../core/format.js'
import { RUN_MARK, SKIPPED_MARK, SKIPPED_WORD, STATUS_MARK, STATUS_ORDER, STATUS_WORD } from '../marks.js'
import type { RenderContext } from '../index.js'
import { overturned } from './reasons.js'
import { disturbedNote } from './box-lines.js'
import { boxMoveNote } from './box-move.js'

export function headline(results: ResultsFile, ctx: RenderContext): string {
  const total = results.cells.length
  const summary = results.summary
  if (!summary || ctx.mode === 'run') return measuredHeadline(results, ctx.mode)
  const n = summary.counts
  const title = {
    pass: `No regression in ${plural(total, 'cell')}`,
    regression: `Regression in ${summary.regressions} of ${plural(total, 'cell')}`,
    error: `${n.error ?? 0} of ${plural(total, 'cell')} could not be measured`,
    inconclusive: `${n.inconclusive ?? 0} of ${plural(total, 'cell')} inconclusive, no regression`,
  }[summary.verdict]
  const shown = summary.accepted
    ? `Regression in ${summary.accepted.cells} of ${plural(total, 'cell')}, accepted`
    : title
  // Skipped cells are counted as `missing` (not measured); the report tells them apart.
  const skipped = results.cells.filter((c) => c.verdict.skipped).length
  const shownCount = (s: (typeof STATUS_ORDER)[number]) => (n[s] ?? 0) - (s === 'missing' ? skipped : 0)
  const counts = STATUS_ORDER.filter((s) => shownCount(s) > 0).map(
    (s) => `${STATUS_MARK[s]} ${shownCount(s)} ${STATUS_WORD[s]}`,
  )
  if (skipped) counts.push(`${SKIPPED_MARK} ${skipped} ${SKIPPED_WORD}, baseline figures shown`)
  const notes = [
    boxMoveNote(results),
    creepNote(results),
    summary.accepted && acceptedNote(summary.accepted),
    overturnedNote(results),
    loosenedGateNote(results),
    disturbedNote(results),
  ]
  const after = notes.filter(Boolean).map((n) => `\n\n${n}`)
  return `### ${RUN_MARK[summary.verdict]} ${shown}\n\n${counts.join(' · ')}${after.join('')}`
}

/**
 * A run that measures and compares nothing (`mode: run`, or no verdicts): how many cells were measured, and how many
 * failed, the whole run ❌ when none could be measured.
 */
function measuredHeadline(results: ResultsFile, mode: string): string {
  const total = results.cells.length
  const failed = results.cells.filter((c) => c.status === 'error' || c.verdict.status === 'error').length
  const how = `(mode ${code(mode)})`
  if (total > 0 && failed === total)
    return `### ❌ Every cell failed: ${failed} of ${plural(total, 'cell')} could not be measured ${how}`
  if (failed)
    return `### ❌ ${failed} of ${plural(total, 'cell')} failed; ${total - failed} measured, not compared ${how}`
  return `### 📊 ${plural(total, 'cell')} measured, not compared ${how}`
}

/** Levels that crept past a limit over several default-branch runs, each of which passed: the span per metric. */
function creepNote(results: ResultsFile): string | undefined {
  const lines = results.cells.flatMap((c) =>
    (c.verdict.creep ?? []).map((a) => `> - ${code(clip(c.id, 120))}: ${escapeText(clip(a.reason, 400))}`),
  )
  if (!lines.length) return undefined
  const more = lines.length > 10 ? [`> - … and ${lines.length - 10} more`] : []
  return [
    '> [!CAUTION]\n> Creep on the default branch: merges that each passed the gate add up past its limit.',
    ...lines.slice(0, 10),
    ...more,
  ].join('\n')
}

/** Stored-baseline regressions the same-box A/B cleared: the check passes on the A/B's word, and the reader sees whose. */
function overturnedNote(results: ResultsFile): string | undefined {
  const cells = results.cells.filter(overturned)
  if (!cells.length) return undefined
  const ids = cells.slice(0, 5).map((c) => code(clip(c.id, 120)))
  const more = cells.length > 5 ? ` and ${cells.length - 5} more` : ''
  return (
    `> [!NOTE]\n> The same-box A/B overturned the stored baseline's regression in ${plural(cells.length, 'cell')} ` +
    `(${ids.join(', ')}${more}): measured against the base commit on this box, ${cells.length === 1 ? 'it does' : 'they do'} not regress. Each row says what both found.`
  )
}

/** Targets whose gate this PR loosened against the base commit's matrix file: the reviewer decides whether that stands. */
function loosenedGateNote(results: ResultsFile): string | undefined {
  const byTarget = new Map<string, string[]>()
  for (const c of results.cells) if (c.loosened?.length && !byTarget.has(c.target)) byTarget.set(c.target, c.loosened)
  if (!byTarget.size) return undefined
  const lines = [...byTarget]
    .slice(0, 10)
    .map(([t, l]) => `> - ${code(clip(t, 120))}: ${escapeText(clip(l.join(', '), 400))}`)
  const more = byTarget.size > 10 ? [`> - … and ${plural(byTarget.size - 10, 'more target')}`] : []
  return [
    `> [!WARNING]\n> This PR loosens the gate it is held to, against its base commit's matrix file:`,
    ...lines,
    ...more,
  ].join('\n')
}

/** Who accepted which regressions: the label is a maintainer's decision, and the report says it was taken. */
function acceptedNote(accepted: { cells: number; by?: string }): string {
  const who = accepted.by ? `by ${code(accepted.by)} ` : ''
  return (
    `> [!IMPORTANT]\n> ${plural(accepted.cells, 'regressed cell')} accepted ${who}with the \`benchmark-accept\` label: ` +
    'the check passes. Once merged, the default branch measures the new level and its reference moves there.'
  )
}

export function provenance(results: ResultsFile, ctx: RenderContext): string {
  const run = results.run
  const baseline = results.summary?.baseline
  const runUrl = safeUrl(ctx.runUrl)
  const here = `This run: ${commit(run.sha || ctx.sha, ctx)} on ${code(run.hardware)}${runUrl ? ` · [workflow run](${runUrl})` : ''}`
  const shards = run.shards?.missing.length ? `<br>\n${shardsLine(run.shards)}` : ''
  const selection = (run.selection ? `<br>\n${escapeText(clip(run.selection, 1000))}` : '') + shards
  if (!results.summary || ctx.mode === 'run') return here + selection
  return `${baselineLine(baseline, ctx)}<br>\n${here}${selection}`
}

function shardsLine(shards: { count: number; missing: number[] }): string {
  const which = shards.missing.join(', ')
  return `Shards: ${shards.count - shards.missing.length} of ${shards.count} sent results; shard ${which} sent nothing, so ${shards.missing.length > 1 ? 'their' : 'its'} cells are errors`
}

function baselineLine(baseline: BaselineRef | undefined, ctx: RenderContext): string {
  if (!baseline) return 'Baseline: none yet. The first run passes; a default-branch run stores the baseline.'
  const from =
    baseline.samples && baseline.samples > 1 ? `median of ${baseline.samples} default-branch runs` : 'one run'
  const when = baseline.date ? `, ${escapeText(baseline.date.slice(0, 10))}` : ''
  const url = safeUrl(baseline.runUrl)
  const link = url ? ` · [baseline run](${url})` : ''
  return `Baseline: ${commit(baseline.sha, ctx)} on ${code(baseline.hardware)} (${from} from ${code(baseline.source)}${when})${link}`
}

function commit(sha: string | undefined, ctx: RenderContext): string {
  if (!sha) return 'unknown commit'
  const short = code(sha.slice(0, 7))
  const repo = safeUrl(ctx.repoUrl)
  return repo && /^[0-9a-f]{7,40}$/i.test(sha) ? `[${short}](${repo}/commit/${sha})` : short
}
