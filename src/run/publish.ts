/**
 * The end of a run: the files in the results directory and the job summary first, then what needs the GitHub
 * API (the dashboard link, the PR comment, the baseline write), then what the step reports back. Nothing the
 * API does, or fails to do, can keep the local outputs from being written.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { runFailure, type RunTally } from '../compare/index.js'
import type { ActionOptions } from '../config/inputs.js'
import { repositoryUrl, type Behaviour, type RunContext } from './context.js'
import { errorMessage } from '../core/errors.js'
import { redact, redacted, type Redacted } from '../core/redact.js'
import { ensureDir, writeFileNoFollow } from '../io/safe-fs.js'
import { httpStatus, type BoundedGitHub } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import type { HistoryEntry, ResultsFile, RunVerdict } from '../core/results.js'
import {
  COMMENT_LIMIT,
  LINK_ROOM,
  SUMMARY_LIMIT,
  renderLeaderboard,
  renderReport,
  withDashboardLink,
  type RenderContext,
} from '../report/index.js'
import { readBackProblem, type BaselineStore } from '../store/index.js'
import { upsertComment } from './comment.js'
import { closeRecoveredEpisodes } from './regression-issue.js'
import { GATED_METRICS, readCellMetric } from '../core/metrics.js'
import { localDashboard, pagesDashboardUrl, recentTrends } from './dashboard-links.js'
import { branchPages, gatesOf, type RunRules } from './pages.js'

export interface PipelineResult {
  verdict: RunVerdict
  regressions: number
  /** Empty, like reportFile, when nothing was written: the matrix file could not be read. */
  resultsFile: string
  reportFile: string
  /** The PR comment's compact form beside report.md, written whether or not the run posts it. */
  commentFile?: string
  /** The report for the job summary (may be empty when nothing ran). */
  summary: string
  commentUrl?: string
  /** Why the step fails, if it does. */
  failure?: string
  /** The matrix file or inputs were unusable: nothing was launched. */
  configError?: boolean
  /** The commit a bisection named (`mode: bisect`, `bisect: auto`). */
  culprit?: string
}

/** What a run came to, before its files are written. */
export type RunOutcome = Omit<PipelineResult, 'resultsFile' | 'reportFile' | 'summary'>

export interface PublishDeps {
  options: ActionOptions
  context: RunContext
  log: Logger
  /** GitHub API access, every call bounded; absent outside Actions or without a token. */
  github?: BoundedGitHub
  /** Hears of the local outputs before any API call, and again when the dashboard link is added (see PipelineDeps). */
  onOutputs?: (written: PipelineResult) => Promise<void>
}

export interface Publication {
  results: ResultsFile
  tally: RunTally
  behaviour: Behaviour
  /** Where a healthy run writes its baseline; absent without a token or a baseline file. */
  store: BaselineStore | undefined
  hardware: string
  /** Per target id, its gate and `noise-floor`: what the history keeps, and the level shifts the pages draw. */
  rules: RunRules
  resultsDir: string
  signal: AbortSignal
  /** Main's history as the baseline store gave it, oldest first. */
  history?: readonly HistoryEntry[]
}

export async function publish(publication: Publication, deps: PublishDeps): Promise<PipelineResult> {
  // Redacted once, before anything is rendered (escaping could split a secret) and before anything leaves
  // the run: the report, the comment, the baseline write and the files all take these results.
  const p = { ...publication, results: redacted(publication.results) }
  const { results, tally, behaviour } = p
  const { options, context } = deps
  const renderCtx: RenderContext = {
    ...renderContext(options.config, behaviour.name, context),
    trends: recentTrends(results.cells, p.history ?? []),
  }
  const outcome: RunOutcome = {
    verdict: tally.verdict,
    regressions: tally.regressions,
    failure: runFailure(tally, results.cells, options),
  }
  // Rendered once, before any API call, with room for the dashboard link's line should the Pages lookup find one.
  const report = renderReport(results, renderCtx, SUMMARY_LIMIT - LINK_ROOM)
  let written = await writeOutputs(p.resultsDir, options.shard, results, report, outcome)
  writeLocalDashboard(p, options.shard)
  await deps.onOutputs?.(written)

  const dashboardUrl = await dashboardLink(p, deps)
  const linked = dashboardUrl ? { ...renderCtx, dashboardUrl } : renderCtx
  if (dashboardUrl) {
    written = await writeOutputs(p.resultsDir, options.shard, results, withDashboardLink(report, dashboardUrl), outcome)
    await deps.onOutputs?.(written)
  }
  // The comment's compact form, also kept beside report.md: what the PR shows, whether or not this run posts it.
  const comment = redact(renderReport(results, { ...linked, form: 'comment' }, COMMENT_LIMIT))
  const commentFile = join(p.resultsDir, 'comment.md')
  writeFileNoFollow(commentFile, comment, p.resultsDir)
  const commentUrl = await maybeComment(behaviour, deps, tally.verdict, comment)
  const notWritten = await maybeWriteBaseline(p, deps)
  await closeEpisodes(p, deps)
  const failure = [written.failure, notWritten && redact(notWritten)].filter(Boolean).join('; ')
  return { ...written, commentFile, commentUrl, failure: failure || undefined }
}

function writeLocalDashboard(p: Publication, shard: string): void {
  // A shard's page would be partial: the merge run writes the whole dashboard.
  const page = shard ? undefined : localDashboard(p.results, p.history ?? [], p.rules, p.behaviour.writeBaseline)
  if (!page) return
  ensureDir(join(p.resultsDir, 'dashboard'), p.resultsDir)
  // The page also draws the stored history, which came from the data branch and was not redacted here.
  writeFileNoFollow(join(p.resultsDir, 'dashboard', 'index.html'), redact(page), p.resultsDir)
}

/** Only a run that comments asks GitHub where Pages serves the data branch from. */
async function dashboardLink(p: Publication, deps: PublishDeps): Promise<string | undefined> {
  const { github } = deps
  if (!p.behaviour.comment || !github || deps.context.prNumber === undefined || p.store?.kind !== 'branch')
    return undefined
  return github.operation('the GitHub Pages lookup', (api) =>
    pagesDashboardUrl(api, deps.options.baselineBranch, p.hardware, deps.log),
  )
}

function renderContext(configPath: string, mode: string, context: RunContext): RenderContext {
  return {
    configPath,
    mode,
    repoUrl: repositoryUrl(context),
    runUrl: context.runUrl || undefined,
    sha: context.sha || undefined,
    // Actions runs the step in the workspace; a local run's paths are relative to where it was started.
    workspace: process.env.GITHUB_WORKSPACE || process.cwd(),
  }
}

async function maybeComment(
  behaviour: Behaviour,
  deps: PublishDeps,
  verdict: RunVerdict,
  body: string,
): Promise<string | undefined> {
  const { options, context, log, github } = deps
  const issueNumber = context.prNumber
  if (!behaviour.comment || options.comment === 'never' || issueNumber === undefined) return undefined
  // One comment per PR and config (docs/reading-the-report.md): a shard's would show its share of the cells until the
  // next one replaced it.
  if (options.shard)
    return void log.info("a shard does not write the PR comment: the merge run writes it, with every shard's cells")
  if (options.comment === 'on-regression' && verdict !== 'regression') return undefined
  if (!github) {
    log.warn('no GitHub token or repository: the PR comment was skipped; the job summary has the report')
    return undefined
  }
  try {
    const { url, action } = await github.operation('the PR comment', (api) =>
      upsertComment({ ...api, issueNumber, configPath: options.config, body }),
    )
    log.info(`PR comment ${action}: ${url}`)
    return url
  } catch (error) {
    const status = httpStatus(error)
    const hint = status === 403 ? ' (fork PR or read-only token: grant `pull-requests: write`)' : ''
    log.warn(`the PR comment could not be written${hint}: ${errorMessage(error)}; the job summary has the report`)
    return undefined
  }
}

/**
 * The store write of a run that writes the baseline. A run that leaves the write out on purpose says so in a
 * warning: it was cancelled, a cell could not be measured (docs/data-branch.md, "What a baseline update writes": only a
 * run with no `error` cells writes), the baseline is a read-only `baseline-file`; flagged cells are left out of the
 * write. A write that was tried and failed (an HTTP error, a timeout, conflicts past the retries) is why the step
 * fails.
 */
export async function maybeWriteBaseline(p: Publication, deps: PublishDeps): Promise<string | undefined> {
  const { behaviour, store, hardware, results, rules, signal } = p
  const { log, github, context } = deps
  if (!behaviour.writeBaseline) return undefined
  const errors = results.cells.filter((c) => c.status === 'error' && c.verdict.status !== 'missing').length
  if (signal.aborted) return void log.warn('baseline not updated: the run was cancelled')
  if (errors) return void log.warn(`baseline not updated: ${errors} cell(s) could not be measured`)
  // Refused before launch (pipeline.ts); kept for a caller that skipped that check.
  if (!store) return `baseline for ${hardware} not written: no GitHub token or repository`
  if (store.kind === 'file')
    return void log.warn('baseline not updated: baseline-file is read-only, nothing is written to the store')
  // A flagged cell (missed lengths, too many failed requests) would poison the reference: keep it out.
  const flagged = results.cells.filter((c) => c.flags.length)
  for (const cell of flagged) log.warn(`${cell.id}: not written to the baseline (flagged: ${cell.flags.join('; ')})`)
  const healthy = flagged.length ? { ...results, cells: results.cells.filter((c) => !c.flags.length) } : results
  try {
    // The dashboard links commits in the repository the data branch belongs to.
    const repoUrl =
      github && context.serverUrl ? `${context.serverUrl}/${github.repo.owner}/${github.repo.repo}` : undefined
    await store.save(hardware, healthy, gatesOf(rules), branchPages(rules, repoUrl))
    log.info(`baseline for ${hardware} updated`)
    return undefined
  } catch (error) {
    // The step fails with this (the runner's error); the log has it once, there.
    return `baseline for ${hardware} not written: ${errorMessage(error)}`
  }
}

/**
 * A default-branch run that wrote the baseline closes the regression episodes its cells are back from: each open
 * `llm-bench-regression` issue of this hardware key whose every cell measured within the limit of the level before
 * the episode (regression-issue.ts). What GitHub refuses is a warning: the issue stays open for the next run.
 */
async function closeEpisodes(p: Publication, deps: PublishDeps): Promise<void> {
  const { github, context, log } = deps
  if (!p.behaviour.writeBaseline || !github || p.signal.aborted || p.store?.kind !== 'branch') return
  const cells = Object.fromEntries(
    p.results.cells
      .filter((c) => c.status === 'ok' && !c.flags.length)
      .map((c) => [
        c.id,
        Object.fromEntries(
          GATED_METRICS.flatMap((m) => {
            const value = readCellMetric(c, m, 'mean')
            return value === undefined ? [] : [[m, value] as const]
          }),
        ),
      ]),
  )
  try {
    const { closed } = await github.operation('the regression issues', ({ request, repo }) =>
      closeRecoveredEpisodes(request, repo, p.hardware, { sha: context.sha, runUrl: context.runUrl, cells }),
    )
    for (const n of closed) log.info(`regression issue #${n} closed: every cell is back within the limit`)
  } catch (error) {
    // A token without `issues` permission is a workflow that does not bisect: said, not warned, on every run.
    const said = `the regression issues could not be read or closed: ${errorMessage(error)}`
    if (httpStatus(error) === 403) log.info(said)
    else log.warn(said)
  }
}

/** Results file name: one per shard so `merge` can read them side by side. */
export function resultsFileName(shard: string): string {
  return shard ? `results-shard-${shard.replace('/', '-of-')}.json` : 'results.json'
}

/**
 * Writes the results file, the report and (for a whole run) the leaderboard; every run ends here, even one that
 * measured nothing. The results come redacted; the summary is text that may hold more than the results (a
 * config error's notice), so it gets its own pass. A results file that would not read back is not written (and
 * one an earlier run left there is removed): the step fails naming the field, and the report is still written.
 */
export async function writeOutputs(
  resultsDir: string,
  shard: string,
  results: Redacted<ResultsFile>,
  summary: string,
  outcome: RunOutcome,
): Promise<PipelineResult> {
  ensureDir(resultsDir)
  const resultsFile = join(resultsDir, resultsFileName(shard))
  const reportFile = join(resultsDir, 'report.md')
  const clean = {
    ...results,
    summary: results.summary ?? { verdict: outcome.verdict, regressions: outcome.regressions, counts: {} },
  }
  const report = redact(summary)
  const text = JSON.stringify(clean, null, 2) + '\n'
  const refused = readBackProblem(text, resultsFile, 'results')
  if (refused) rmSync(resultsFile, { force: true })
  else writeFileNoFollow(resultsFile, text, resultsDir)
  writeFileNoFollow(reportFile, report, resultsDir)
  // A shard's page would be partial: the merge run writes the whole leaderboard.
  if (clean.cells.length && !shard)
    writeFileNoFollow(join(resultsDir, 'leaderboard.html'), renderLeaderboard(clean), resultsDir)
  const failure = [outcome.failure, refused].filter(Boolean).join('; ')
  return { ...outcome, failure: failure ? redact(failure) : undefined, resultsFile, reportFile, summary: report }
}
