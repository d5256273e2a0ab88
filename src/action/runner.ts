/**
 * The one place that talks to the Actions runtime: inputs, outputs, summary, state, setFailed.
 * `run` is the main step, `post` the always-run cleanup step.
 */
import * as core from '@actions/core'
import * as github from '@actions/github'
import { parseInputs } from '../config/inputs.js'
import type { RunContext } from '../run/context.js'
import { errorMessage } from '../core/errors.js'
import { printable, type Logger } from '../core/log.js'
import { redact, secrets } from '../core/redact.js'
import { runPipeline, type PipelineResult } from '../run/pipeline.js'
import { API_TIMEOUTS, type ApiTimeouts } from '../core/github-port.js'
import { cancelOnSignals } from '../run/signals.js'
import { couldNotRunNotice } from '../report/index.js'
import { DEFAULT_GRACE_MS, createRunGuard, makeRunId, runCleanup, type CleanupTask } from '../server/index.js'
import { VERSION } from '../core/version.js'

export const OUTPUT = {
  verdict: 'verdict',
  regressions: 'regressions',
  resultsFile: 'results-file',
  reportFile: 'report-file',
  commentUrl: 'comment-url',
  culprit: 'culprit',
} as const

/**
 * Saved state for the post step. `cleanup`: the guard's tasks still to undo, process groups named by pid and
 * leader start time (what the post step acts on); `pgids`: every group launched, a record it only counts.
 */
export const STATE = { pgids: 'pgids', isPost: 'isPost', cleanup: 'cleanup' } as const

/** The PR label with which a maintainer accepts an intended regression. */
export const ACCEPT_LABEL = 'benchmark-accept'

/** Main and post step share one bundle: the main step marks itself so the post step knows it is one. */
export async function main(): Promise<void> {
  if (core.getState(STATE.isPost) === 'true') return post()
  core.saveState(STATE.isPost, 'true')
  return run()
}

const actionsLogger: Logger = {
  info: (m) => core.info(printable(m)),
  warn: (m) => core.warning(printable(m)),
  error: (m) => core.error(printable(m)),
  debug: (m) => core.debug(printable(m)),
  group: (name, fn) => core.group(printable(name), fn),
}

/**
 * Everything secret the step can see is redacted from what it writes or posts (core/redact.ts), and the token
 * is registered with the runner's own masking too.
 */
function registerSecrets(): void {
  secrets.addFromEnv(process.env)
  const token = core.getInput('github-token')
  if (token) {
    secrets.add(token)
    core.setSecret(token)
  }
}

function runContext(): RunContext {
  const ctx = github.context
  const repository = process.env.GITHUB_REPOSITORY?.includes('/') ? ctx.repo : undefined
  const payload = ctx.payload as {
    action?: string
    label?: { name?: string }
    sender?: { login?: string }
    pull_request?: {
      number?: number
      labels?: { name?: string }[]
      base?: { sha?: string; repo?: { full_name?: string } }
      head?: { repo?: { full_name?: string } | null }
    }
    repository?: { default_branch?: string }
  }
  const accepted = payload.pull_request?.labels?.some((l) => l.name === ACCEPT_LABEL)
  const labelledNow = payload.action === 'labeled' && payload.label?.name === ACCEPT_LABEL
  return {
    event: ctx.eventName ?? '',
    sha: ctx.sha ?? '',
    ref: ctx.ref ?? '',
    runUrl:
      repository && ctx.runId
        ? `${ctx.serverUrl}/${repository.owner}/${repository.repo}/actions/runs/${ctx.runId}`
        : '',
    repository,
    serverUrl: ctx.serverUrl,
    defaultBranch: payload.repository?.default_branch,
    prNumber: payload.pull_request?.number,
    baseSha: payload.pull_request?.base?.sha,
    fork: forkOf(payload.pull_request),
    acceptance: accepted ? { by: labelledNow ? payload.sender?.login : undefined } : undefined,
  }
}

/**
 * The head repository of a pull request from a fork (`pull_request.head.repo.full_name` differs from the base's;
 * https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request). A deleted fork has no head repo.
 */
function forkOf(
  pr: { base?: { repo?: { full_name?: string } }; head?: { repo?: { full_name?: string } | null } } | undefined,
) {
  if (!pr?.head) return undefined
  const head = pr.head.repo?.full_name ?? 'a deleted fork'
  const base = pr.base?.repo?.full_name
  return base && head !== base ? head : undefined
}

/**
 * Test-only: `LLM_BENCH_GATE_TEST_API_TIMEOUT_MS` shortens the per-request bound of GitHub API calls (and the
 * per-operation bound in proportion) so that the end-to-end tests of a GitHub that never answers end in
 * seconds. Not an input and not documented for users; it can only shorten: a value that is not a whole
 * number of milliseconds below the default is ignored.
 */
function apiTimeouts(): ApiTimeouts {
  const ms = Number(process.env.LLM_BENCH_GATE_TEST_API_TIMEOUT_MS)
  if (!Number.isInteger(ms) || ms <= 0 || ms >= API_TIMEOUTS.requestMs) return API_TIMEOUTS
  return { requestMs: ms, operationMs: ms * (API_TIMEOUTS.operationMs / API_TIMEOUTS.requestMs) }
}

/**
 * Writes the job summary and the step outputs, each again only when it changed: the pipeline hands over its
 * local outputs before any GitHub API call (so a hung API cannot keep them back), the final result after.
 */
function stepOutputs(): (result: PipelineResult) => Promise<void> {
  let summary: string | undefined
  const set = new Map<string, string>()
  return async (result) => {
    if (process.env.GITHUB_STEP_SUMMARY && result.summary !== summary) {
      // The step's own summary file: a later report replaces the earlier one.
      await core.summary.addRaw(result.summary, true).write({ overwrite: true })
      summary = result.summary
    }
    const outputs: Array<[string, string | undefined]> = [
      [OUTPUT.verdict, result.verdict],
      [OUTPUT.regressions, String(result.regressions)],
      [OUTPUT.resultsFile, result.resultsFile],
      [OUTPUT.reportFile, result.reportFile],
      [OUTPUT.commentUrl, result.commentUrl],
      [OUTPUT.culprit, result.culprit],
    ]
    for (const [name, value] of outputs) {
      if (!value || set.get(name) === value) continue
      core.setOutput(name, value)
      set.set(name, value)
    }
  }
}

export async function run(): Promise<void> {
  // The runner cancels a job with SIGINT, then SIGTERM: the first tears down, a second kills at once.
  const cancel = cancelOnSignals(actionsLogger)
  try {
    registerSecrets()
    const options = parseInputs((name) => core.getInput(name))
    const context = runContext()
    const pgids: number[] = []
    const guard = createRunGuard({
      runId: makeRunId(),
      log: actionsLogger,
      onChange: (tasks) => core.saveState(STATE.cleanup, JSON.stringify(tasks)),
    })
    const octokit = options.githubToken && context.repository ? github.getOctokit(options.githubToken) : undefined
    const report = stepOutputs()
    const result = await runPipeline({
      options,
      context,
      log: actionsLogger,
      toolVersion: VERSION,
      github:
        octokit && context.repository ? { request: octokit.request as never, repo: context.repository } : undefined,
      apiTimeouts: apiTimeouts(),
      onOutputs: report,
      signal: cancel.signal,
      guard,
      // The runner's own temporary folder, emptied between jobs (docs.github.com: variables, RUNNER_TEMP).
      tempDir: process.env.RUNNER_TEMP || undefined,
      onSpawn: (pgid, start) => {
        cancel.onSpawn(pgid, start)
        pgids.push(pgid)
        core.saveState(STATE.pgids, JSON.stringify(pgids))
      },
    }).finally(() => guard.close())
    await report(result)
    if (cancel.signal.aborted) core.setFailed(errorMessage(cancel.signal.reason))
    else if (result.failure) core.setFailed(printable(result.failure))
    else core.info(`verdict: ${result.verdict}`)
  } catch (error) {
    // The pipeline writes results and the report itself; this is for what it could not catch.
    if (process.env.GITHUB_STEP_SUMMARY) {
      await core.summary
        .addRaw(redact(couldNotRunNotice(errorMessage(error))), true)
        .write()
        .catch(() => undefined)
    }
    core.setFailed(printable(errorMessage(error)))
  } finally {
    cancel.dispose()
  }
}

/**
 * Post step: the safety net. It kills the process groups the main step left alive — those its teardown never
 * saw gone, and only while their leader is still the process the main step started — removes the containers
 * still carrying the run's label, runs the targets' `stop` commands again (their output goes to the
 * targets' logs) and removes the base commit's worktrees still there. Everything comes from the saved cleanup tasks.
 */
export async function post(): Promise<void> {
  try {
    registerSecrets()
    const saved = core.getState(STATE.cleanup)
    const tasks = saved ? (JSON.parse(saved) as CleanupTask[]) : []
    const launched = core.getState(STATE.pgids)
    const count = launched ? (JSON.parse(launched) as unknown[]).length : 0
    const report = await runCleanup(tasks, DEFAULT_GRACE_MS)
    for (const line of report.notOurs) core.debug(`post: ${line}`)
    for (const line of report.leftAlone) core.warning(`post: ${line}`)
    if (report.groups.length)
      core.warning(`post: killed process groups left alive by the main step: ${report.groups.join(', ')}`)
    else core.info(`post: ${count} launched process group(s), none left alive`)
    if (tasks.length === 0) return
    if (report.containers.length)
      core.warning(`post: removed ${report.containers.length} container(s) of this run left by the main step`)
    else core.info('post: no container of this run left')
    if (report.stops) core.info(`post: ran ${report.stops} stop command(s)`)
    if (report.worktrees.length)
      core.warning(
        `post: removed ${report.worktrees.length} base-commit worktree(s) left by the main step: ${report.worktrees.join(', ')}`,
      )
    for (const problem of report.problems) core.warning(`post: ${problem}`)
  } catch (error) {
    core.warning(`post: cleanup failed: ${errorMessage(error)}`)
  }
}
