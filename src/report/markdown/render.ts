/**
 * The markdown report. One renderer serves the PR comment (65,536 characters) and the job summary
 * (1 MiB): when the text is too long it sheds detail in stages — log tails, rounds, full metrics, the other
 * detail sections, then table rows of cells that need no attention — always keeping the headline, the
 * regressions and the errors, and says what it left out and where the rest is.
 */
import type { CellResult, CellVerdictStatus, ResultsFile } from '../../core/results.js'
import { abHeader, abSection } from './ab-section.js'
import { flagsSection, metricsSection, roundsSection, verdictNotes } from './details.js'
import { details, safeUrl } from '../escape.js'
import { hostSection } from './host-section.js'
import { plural } from '../../core/format.js'
import { headline, provenance } from './headline.js'
import { errorList, inconclusiveList, regressionList } from './reasons.js'
import { changedTable, needsALook } from './changed-table.js'
import { workspaceRelative } from './workspace-paths.js'
import type { RenderContext } from '../index.js'
import { STATUS_MARK } from '../marks.js'
import { bySeverity } from '../severity.js'
import { runNotes } from './run-notes.js'
import { cellsTable } from './table.js'
import { everyCellTable } from './every-cell.js'
import { enginesSection, failuresSection } from './targets.js'

interface Detail {
  logTails: boolean
  rounds: boolean
  metrics: boolean
  /** Verdict notes, flags, host preflight, engine versions and launch commands. */
  extras: boolean
  /** Which table rows stay: all, those needing attention, or only regressions and errors. */
  rows: 'all' | 'attention' | 'failing'
  /** Last resort: at most this many regressed/failed cells in the lists and the table. */
  limit?: number
}

const ATTENTION: readonly CellVerdictStatus[] = ['regression', 'error', 'inconclusive']
const FAILING: readonly CellVerdictStatus[] = ['regression', 'error']

const STAGES: Detail[] = [
  { logTails: true, rounds: true, metrics: true, extras: true, rows: 'all' },
  { logTails: false, rounds: true, metrics: true, extras: true, rows: 'all' },
  { logTails: false, rounds: false, metrics: true, extras: true, rows: 'all' },
  { logTails: false, rounds: false, metrics: false, extras: true, rows: 'all' },
  { logTails: false, rounds: false, metrics: false, extras: false, rows: 'all' },
  { logTails: false, rounds: false, metrics: false, extras: false, rows: 'attention' },
  { logTails: false, rounds: false, metrics: false, extras: false, rows: 'failing' },
]

/** Size as UTF-8 bytes: never less than the character count GitHub limits, and what the summary file holds. */
export function reportSize(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

export function render(results: ResultsFile, ctx: RenderContext, marker: string, maxChars: number): string {
  const compose = (d: Detail) => workspaceRelative(composeAll(results, ctx, marker, d, maxChars), ctx.workspace)
  for (const detail of STAGES) {
    const text = compose(detail)
    if (reportSize(text) <= maxChars) return text
  }
  // Even regressions and errors alone are too many: list as many as fit, most severe first (severity.ts).
  const failing = results.cells.filter((c) => FAILING.includes(c.verdict.status)).length
  let lo = 0
  let hi = failing
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (reportSize(compose({ ...STAGES.at(-1)!, limit: mid })) <= maxChars) lo = mid
    else hi = mid - 1
  }
  const text = compose({ ...STAGES.at(-1)!, limit: lo })
  return reportSize(text) <= maxChars ? text : hardCut(text, maxChars)
}

function composeAll(results: ResultsFile, ctx: RenderContext, marker: string, d: Detail, maxChars: number): string {
  const run = runNotes(results.cells)
  const ordered = bySeverity(run.cells)
  const failing = ordered.filter((c) => FAILING.includes(c.verdict.status))
  const shownFailing = failing.slice(0, d.limit ?? Infinity)
  const shownRegressed = shownFailing.filter((c) => c.verdict.status === 'regression')
  const shownFailed = shownFailing.filter((c) => c.verdict.status === 'error')
  const keep = (c: CellResult) =>
    d.rows === 'all'
      ? true
      : d.rows === 'attention'
        ? ATTENTION.includes(c.verdict.status)
        : FAILING.includes(c.verdict.status)
  let rows = ordered.filter(keep)
  if (d.limit !== undefined) rows = shownFailing

  const parts = [marker, headline(results, ctx)]
  const unlisted = failing.length - shownFailing.length
  const shed = shedNote(results.cells, d, results.cells.length - rows.length - unlisted, unlisted, maxChars, ctx)
  const comment = ctx.form === 'comment'
  // The comment's first screen is the verdict and what needs a look; what was shed is said under them.
  if (shed && !comment) parts.push(shed)
  parts.push(provenance(results, ctx))
  const ab = abHeader(results.cells)
  if (ab) parts.push(ab)
  if (run.line) parts.push(run.line)
  if (comment)
    parts.push(...compact({ ordered, rows, ctx, d, shed, accepted: results.summary?.accepted !== undefined }))
  else parts.push(...lists(ordered, shownRegressed, shownFailed, d, results), ...fullTable(ordered, rows, ctx, d))
  const sections = [
    d.extras ? verdictNotes(ordered) : undefined,
    d.metrics ? metricsSection(ordered) : undefined,
    d.rounds ? roundsSection(ordered) : undefined,
    d.extras ? flagsSection(ordered) : undefined,
    d.extras ? hostSection(ordered) : undefined,
    d.extras ? enginesSection(ordered) : undefined,
    failuresSection(d.limit === undefined ? ordered : shownFailed, d.logTails),
  ]
  parts.push(...sections.filter((s): s is string => s !== undefined))
  return parts.join('\n\n') + '\n'
}

/** The full report's lists under the headline, most severe first: errors, regressions, inconclusive cells, with why. */
function lists(
  ordered: readonly CellResult[],
  shownRegressed: readonly CellResult[],
  shownFailed: readonly CellResult[],
  d: Detail,
  results: ResultsFile,
): string[] {
  const parts: string[] = []
  if (shownFailed.length) parts.push(`#### Errors\n\n${errorList(shownFailed)}`)
  if (shownRegressed.length)
    parts.push(`#### Regressions\n\n${regressionList(shownRegressed, results.summary?.accepted !== undefined)}`)
  const undecided = ordered.filter((c) => c.verdict.status === 'inconclusive')
  if (undecided.length && d.limit === undefined) parts.push(`#### Inconclusive\n\n${inconclusiveList(undecided)}`)
  return parts
}

/** The A/B section and the table of `rows`, as the job summary and `report.md` show them (the link comes last). */
function fullTable(
  ordered: readonly CellResult[],
  rows: readonly CellResult[],
  ctx: RenderContext,
  d: Detail,
): string[] {
  const parts: string[] = []
  const tested = d.limit === undefined ? abSection(ordered) : undefined
  if (tested) parts.push(tested)
  if (rows.length) parts.push(cellsTable(rows, ctx.trends))
  return parts
}

interface CompactInput {
  ordered: readonly CellResult[]
  rows: readonly CellResult[]
  ctx: RenderContext
  d: Detail
  shed: string | undefined
  accepted: boolean
}

/**
 * The comment's body under the headline: the compact table of what needs a look with its why, the count of cells
 * within their limits, what was shed, then every cell's row folded, the A/B arms and the dashboard link.
 */
function compact({ ordered, rows, ctx, d, shed, accepted }: CompactInput): string[] {
  const parts: string[] = []
  const changed = changedTable(ordered, accepted)
  if (changed) parts.push(changed)
  const fine = ordered.filter((c) => !needsALook(c)).length
  if (fine) parts.push(`${STATUS_MARK.pass} ${plural(fine, 'cell')} within limits${changed ? '' : '.'}`)
  if (shed) parts.push(shed)
  if (rows.length) parts.push(details(`Every cell (${plural(rows.length, 'row')})`, everyCellTable(rows, ctx.trends)))
  const tested = d.limit === undefined ? abSection(ordered) : undefined
  if (tested) parts.push(tested)
  const link = dashboardLine(ctx.dashboardUrl)
  if (link) parts.push(link)
  return parts
}

function dashboardLine(url: string | undefined): string | undefined {
  const dashboard = safeUrl(url)
  return dashboard
    ? `📈 [Dashboard](${dashboard}): every cell's decode and TTFT over the default branch's runs.`
    : undefined
}

/** Bytes the full form keeps free under its limit for the dashboard link's line (withDashboardLink). */
export const LINK_ROOM = 2048

/**
 * The full form's dashboard link, a line of its own after the report: the Pages lookup that finds the link is a
 * GitHub API call, made after the report is written, and the report becomes the linked one by this line alone,
 * without being rendered again. The report was rendered LINK_ROOM bytes under its limit; a longer line is left out.
 */
export function withDashboardLink(report: string, url: string | undefined): string {
  const line = dashboardLine(url)
  return line && reportSize(`\n${line}\n`) <= LINK_ROOM ? `${report}\n${line}\n` : report
}

function shedNote(
  cells: readonly CellResult[],
  d: Detail,
  hiddenRows: number,
  unlisted: number,
  maxChars: number,
  ctx: RenderContext,
): string | undefined {
  const left: string[] = []
  if (!d.logTails && cells.some((c) => c.status === 'error' && c.info?.logTail)) left.push('engine log tails')
  if (!d.rounds) left.push('per-round figures')
  if (!d.metrics) left.push('the full metrics')
  if (!d.extras) left.push('verdict notes, flags, host preflight, engine versions and launch commands')
  if (hiddenRows)
    left.push(
      `the table rows of ${plural(hiddenRows, 'cell')} that ${d.rows === 'failing' ? 'did not regress or fail' : 'passed, improved, are new or missing'}`,
    )
  if (unlisted) left.push(`${plural(unlisted, 'more regressed or failed cell')}`)
  if (!left.length) return undefined
  const runUrl = safeUrl(ctx.runUrl)
  const where = runUrl ? `the job summary of [the workflow run](${runUrl})` : 'the job summary'
  return [
    '> [!NOTE]',
    `> Shortened to stay under ${maxChars.toLocaleString('en-US')} characters; left out: ${left.join('; ')}.`,
    `> More is in ${where} and \`report.md\`; every figure is in \`results.json\` (results directory and artifact).`,
  ].join('\n')
}

function hardCut(text: string, maxChars: number): string {
  const ending = '\n\n… (cut to fit the size limit)\n'
  let cut = text.slice(0, Math.max(0, maxChars - ending.length))
  while (reportSize(cut + ending) > maxChars) cut = cut.slice(0, Math.floor(cut.length * 0.95))
  // Never leave half of a surrogate pair at the cut.
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1)
  return cut + ending
}
