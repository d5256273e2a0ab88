/**
 * The end of a run: the report (job summary and PR comment), the baseline write, and the files
 * in the results directory, then what the step reports back.
 */
import { join } from 'node:path'
import type { RunTally } from '../compare/index.js'
import type { ActionOptions } from '../config/inputs.js'
import type { Behaviour, RunContext } from './context.js'
import { errorMessage } from '../core/errors.js'
import { redact, redacted, type Redacted } from '../core/redact.js'
import { ensureDir, writeFileNoFollow } from '../core/safe-fs.js'
import { httpStatus, type GitHubRequest, type RepoRef } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import type { GateConfig } from '../core/plan.js'
import type { CellResult, HistoryEntry, ResultsFile, RunVerdict } from '../core/results.js'
import {
  COMMENT_LIMIT,
  SUMMARY_LIMIT,
  renderLeaderboard,
  renderReport,
  upsertComment,
  type RenderContext,
} from '../report/index.js'
import type { BaselineStore } from '../store/index.js'
import { localDashboard, pagesDashboardUrl, recentTrends } from './dashboard-links.js'

export interface PipelineResult {
  verdict: RunVerdict
  regressions: number
  resultsFile: string
  reportFile: string
  /** The report for the job summary (may be empty when nothing ran). */
  summary: string
  commentUrl?: string
  /** Why the step fails, if it does. */
  failure?: string
  /** The matrix file or inputs were unusable: nothing was launched. */
  configError?: boolean
}

/** What a run came to, before its files are written. */
export type RunOutcome = Omit<PipelineResult, 'resultsFile' | 'reportFile' | 'summary'>

export interface PublishDeps {
  options: ActionOptions
  context: RunContext
  log: Logger
  /** GitHub API access; absent outside Actions or without a token. */
  github?: { request: GitHubRequest; repo: RepoRef }
}

export interface Publication {
  results: ResultsFile
  tally: RunTally
  behaviour: Behaviour
  /** Where a healthy run writes its baseline; absent without a token or a baseline file. */
  store: BaselineStore | undefined
  hardware: string
  gates: Record<string, GateConfig>
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
  const { options, context, log } = deps
  const renderCtx = {
    ...renderContext(options.config, behaviour.name, context),
    trends: recentTrends(results.cells, p.history ?? []),
    dashboardUrl: await dashboardLink(p, deps),
  }
  const summary = renderReport(results, renderCtx, SUMMARY_LIMIT)
  const commentUrl = await maybeComment(behaviour, deps, tally.verdict, () =>
    renderReport(results, renderCtx, COMMENT_LIMIT),
  )
  await maybeWriteBaseline(p, log)
  const failure = failureReason(tally.verdict, tally.regressions, results.cells, options)
  const written = await writeOutputs(p.resultsDir, options.shard, results, summary, {
    verdict: tally.verdict,
    regressions: tally.regressions,
    commentUrl,
    failure,
  })
  // A shard's page would be partial: the merge run writes the whole dashboard.
  const page = options.shard ? undefined : localDashboard(results, p.history ?? [], p.gates)
  if (page) {
    ensureDir(join(p.resultsDir, 'dashboard'), p.resultsDir)
    // The page also draws the stored history, which came from the data branch and was not redacted here.
    writeFileNoFollow(join(p.resultsDir, 'dashboard', 'index.html'), redact(page), p.resultsDir)
  }
  return written
}

/** Only a run that comments asks GitHub where Pages serves the data branch from. */
async function dashboardLink(p: Publication, deps: PublishDeps): Promise<string | undefined> {
  if (!p.behaviour.comment || !deps.github || deps.context.prNumber === undefined || p.store?.kind !== 'branch')
    return undefined
  return pagesDashboardUrl(deps.github, deps.options.baselineBranch, p.hardware, deps.log)
}

function renderContext(configPath: string, mode: string, context: RunContext): RenderContext {
  const { repository, serverUrl } = context
  return {
    configPath,
    mode,
    repoUrl: repository && serverUrl ? `${serverUrl}/${repository.owner}/${repository.repo}` : undefined,
    runUrl: context.runUrl || undefined,
    sha: context.sha || undefined,
  }
}

async function maybeComment(
  behaviour: Behaviour,
  deps: PublishDeps,
  verdict: RunVerdict,
  body: () => string,
): Promise<string | undefined> {
  const { options, context, log } = deps
  if (!behaviour.comment || options.comment === 'never' || context.prNumber === undefined) return undefined
  if (options.comment === 'on-regression' && verdict !== 'regression') return undefined
  if (!deps.github) {
    log.warn('no GitHub token or repository: the PR comment was skipped; the job summary has the report')
    return undefined
  }
  try {
    const { url, action } = await upsertComment({
      ...deps.github,
      issueNumber: context.prNumber,
      configPath: options.config,
      body: body(),
    })
    log.info(`PR comment ${action}: ${url}`)
    return url
  } catch (error) {
    const status = httpStatus(error)
    const hint = status === 403 ? ' (fork PR or read-only token: grant `pull-requests: write`)' : ''
    log.warn(`the PR comment could not be written${hint}: ${errorMessage(error)}; the job summary has the report`)
    return undefined
  }
}

async function maybeWriteBaseline(p: Publication, log: Logger): Promise<void> {
  const { behaviour, store, hardware, results, gates, signal } = p
  if (!behaviour.writeBaseline) return
  const errors = results.cells.filter((c) => c.status === 'error' && c.verdict.status !== 'missing').length
  if (signal.aborted) return log.warn('baseline not updated: the run was cancelled')
  if (errors) return log.warn(`baseline not updated: ${errors} cell(s) could not be measured`)
  if (!store) return log.warn('baseline not updated: no GitHub token or repository')
  // A flagged cell (missed lengths, too many failed requests) would poison the reference: keep it out.
  const flagged = results.cells.filter((c) => c.flags.length)
  for (const cell of flagged) log.warn(`${cell.id}: not written to the baseline (flagged: ${cell.flags.join('; ')})`)
  const healthy = flagged.length ? { ...results, cells: results.cells.filter((c) => !c.flags.length) } : results
  try {
    await store.save(hardware, healthy, gates)
    log.info(`baseline for ${hardware} updated`)
  } catch (error) {
    log.warn(`baseline not updated: ${errorMessage(error)}`)
  }
}

function failureReason(
  verdict: RunVerdict,
  regressions: number,
  cells: CellResult[],
  options: ActionOptions,
): string | undefined {
  const errors = cells.filter((c) => c.verdict.status === 'error').length
  const reasons: string[] = []
  if (verdict === 'regression' && options.failOnRegression) reasons.push(`${regressions} cell(s) regressed`)
  if (errors && options.failOnError) reasons.push(`${errors} cell(s) could not be measured`)
  return reasons.length ? reasons.join('; ') : undefined
}

/** Results file name: one per shard so `merge` can read them side by side. */
export function resultsFileName(shard: string): string {
  return shard ? `results-shard-${shard.replace('/', '-of-')}.json` : 'results.json'
}

/**
 * Writes the results file, the report and (for a whole run) the leaderboard; every run ends here, even one that
 * measured nothing. The results come redacted; the summary is text that may hold more than the results (a
 * config error's notice), so it gets its own pass.
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
  writeFileNoFollow(resultsFile, JSON.stringify(clean, null, 2) + '\n', resultsDir)
  writeFileNoFollow(reportFile, report, resultsDir)
  // A shard's page would be partial: the merge run writes the whole leaderboard.
  if (clean.cells.length && !shard)
    writeFileNoFollow(join(resultsDir, 'leaderboard.html'), renderLeaderboard(clean), resultsDir)
  return { ...outcome, failure: outcome.failure && redact(outcome.failure), resultsFile, reportFile, summary: report }
}
