/** The top of the report: verdict, counts, what was compared with what, and the cells that need attention. */
import type { BaselineRef, CellResult, MetricVerdict, ResultsFile } from '../core/results.js'
import { clip, code, escapeText, safeUrl } from './escape.js'
import { plural } from '../core/format.js'
import { environmentNote } from './host-section.js'
import { RUN_MARK, SKIPPED_MARK, SKIPPED_WORD, STATUS_MARK, STATUS_ORDER, STATUS_WORD } from './marks.js'
import type { RenderContext } from './index.js'

export function headline(results: ResultsFile, ctx: RenderContext): string {
  const total = results.cells.length
  const summary = results.summary
  if (!summary || ctx.mode === 'run') {
    return `### 📊 ${plural(total, 'cell')} measured, not compared (mode \`${ctx.mode}\`)`
  }
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
  const accepted = summary.accepted ? `\n\n${acceptedNote(summary.accepted)}` : ''
  return `### ${RUN_MARK[summary.verdict]} ${shown}\n\n${counts.join(' · ')}${accepted}`
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

/** The engine counters that changed with the cell (`server: preemptions 0 → 37 per round`), clipped. */
function serverNote(cell: CellResult): string | undefined {
  const changes = cell.verdict.serverChanges
  return changes?.length ? `server: ${escapeText(clip(changes.join(', '), 300))}` : undefined
}

/** One line per regressed cell with the reasons of its regressed metrics; `accepted` marks them as accepted. */
export function regressionList(cells: readonly CellResult[], accepted = false): string {
  return cells
    .map((cell) => {
      const reasons = Object.values(cell.verdict.metrics)
        .filter((m) => m.status === 'regression')
        .map((m) => escapeText(m.reason))
      // Failures outside the metrics: degenerate output, an accuracy drop, a new length miss.
      reasons.push(...(cell.verdict.failures ?? []).map(escapeText))
      // A changed driver, engine or model file may explain the regression: say so next to it.
      const environment = environmentNote(cell)
      if (environment) reasons.push(escapeText(environment))
      // A renamed cell's figures are against its old name's baseline: say which.
      if (cell.verdict.comparedWith) reasons.push(`compared with ${escapeText(cell.verdict.comparedWith)} (renamed?)`)
      const server = serverNote(cell)
      if (server) reasons.push(server)
      const confirmed = cell.verdict.confirmed ? ` (confirmed ${cell.verdict.confirmed}×)` : ''
      return `- ${STATUS_MARK.regression} **${escapeText(cell.id)}**: ${reasons.join('; ')}${confirmed}${accepted ? ' — accepted' : ''}`
    })
    .join('\n')
}

/** One line per failed cell: its error, on one line and clipped (the full text is in the details). */
export function errorList(cells: readonly CellResult[]): string {
  return cells
    .map(
      (cell) =>
        `- ${STATUS_MARK.error} **${escapeText(cell.id)}**: ${escapeText(clip(cell.error ?? cell.verdict.note ?? 'error', 300))}`,
    )
    .join('\n')
}

/** What would decide an inconclusive metric, in words. */
function decider(m: MetricVerdict): string {
  switch (m.needs) {
    case 'rounds':
      return m.moreRounds ? `${plural(m.moreRounds, 'more warm round')}` : 'more warm rounds'
    case 'launches':
      return m.moreLaunches ? plural(m.moreLaunches, 'more launch per arm', 'more launches per arm') : 'more launches'
    case 'quieter-box':
      return 'a quieter box'
    case 'baseline':
      return 'more default-branch runs'
    case 'workload':
    case undefined:
      return 'the requested workload'
  }
}

/** One line per inconclusive cell: why each undecided metric is, and what would decide it. */
export function inconclusiveList(cells: readonly CellResult[]): string {
  return cells
    .map((cell) => {
      const metrics = Object.values(cell.verdict.metrics)
        .filter((m) => m.status === 'inconclusive')
        // The reason starts with the metric's label and may already say what it needs.
        .map((m) => `${escapeText(m.reason)}${m.reason.includes('needs ') ? '' : ` — needs ${decider(m)}`}`)
      // A reason that says what would decide it (`… — the default-branch run after merge measures it`) keeps its own.
      const undecided = cell.verdict.undecided ?? []
      const flagged = undecided.filter((u) => !u.includes(' — '))
      const cellWide = [
        ...(flagged.length ? [`${escapeText(clip(flagged.join('; '), 200))} — needs the requested workload`] : []),
        ...undecided.filter((u) => u.includes(' — ')).map((u) => escapeText(clip(u, 300))),
      ]
      const server = serverNote(cell)
      const why = [...metrics, ...cellWide, ...(server ? [server] : [])]
      return `- ${STATUS_MARK.inconclusive} **${escapeText(cell.id)}**: ${why.length ? why.join('; ') : escapeText(clip(cell.verdict.note ?? 'undecided', 300))}`
    })
    .join('\n')
}
