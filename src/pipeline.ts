/**
 * plan → baseline → per target: launch, measure, compare, confirm, teardown → report → store.
 * Takes plain data and ports; the runner and the CLI are its only callers.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { loadPlan, matchesOnly } from './config/index.js'
import { formatPlan } from './config/format.js'
import type { ActionOptions } from './config/inputs.js'
import type { GateConfig, Plan } from './core/plan.js'
import { resolveBehaviour, type Behaviour, type RunContext } from './context.js'
import { judgeCell, missingCells, runVerdict, type BaselineView } from './compare/index.js'
import { ConfigError, errorMessage } from './core/errors.js'
import type { GitHubRequest, RepoRef } from './core/github-port.js'
import { httpStatus } from './core/github-port.js'
import { hardwareKey, detectHardware } from './hardware.js'
import type { Logger } from './core/log.js'
import { errorCell } from './cells.js'
import { readShardResults } from './merge.js'
import { COMMENT_LIMIT, SUMMARY_LIMIT, renderLeaderboard, renderReport, upsertComment, type RenderContext } from './report/index.js'
import { RESULTS_SCHEMA, type BaselineRef, type CellResult, type ResultsFile, type RunVerdict } from './core/results.js'
import { runTarget } from './run-target.js'
import { branchStore, fileStore, type BaselineStore } from './store/index.js'

export interface PipelineDeps {
  options: ActionOptions
  context: RunContext
  log: Logger
  toolVersion: string
  /** GitHub API access; absent outside Actions or without a token. */
  github?: { request: GitHubRequest; repo: RepoRef }
  signal?: AbortSignal
  onSpawn?: (pgid: number) => void
  detectHardware?: () => Promise<string>
  cwd?: string
}

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

export async function runPipeline(deps: PipelineDeps): Promise<PipelineResult> {
  const { options, context, log } = deps
  const cwd = deps.cwd ?? process.cwd()
  const resultsDir = resolve(cwd, options.resultsDir)
  const behaviour = resolveBehaviour(options.mode, context)
  const startedAt = new Date().toISOString()
  const signal = deps.signal ?? new AbortController().signal

  let plan: Plan
  try {
    plan = await loadPlan(options.config, { only: options.only, shard: options.shard || undefined, cwd })
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    const results = emptyResults(context, deps.toolVersion, startedAt, options, 'unknown')
    const summary = `## llm-bench-gate: configuration error\n\n\`${options.config}\` could not be used:\n\n${error.problems.map((p) => `- ${p}`).join('\n')}\n`
    return finish(resultsDir, options, results, summary, { verdict: 'error', regressions: 0, failure: error.message, configError: true })
  }

  if (options.dryRun) {
    const text = formatPlan(plan)
    log.info(text)
    const results = emptyResults(context, deps.toolVersion, startedAt, options, plan.hardware ?? 'unknown')
    const summary = `## llm-bench-gate: dry run\n\nMode \`${behaviour.name}\`; nothing was launched.\n\n\`\`\`\n${text}\n\`\`\`\n`
    return finish(resultsDir, options, results, summary, { verdict: 'pass', regressions: 0 })
  }

  const hardware = await hardwareKey(options.hardware, plan.hardware, deps.detectHardware ?? (() => detectHardware()))
  log.info(`mode ${behaviour.name} on ${context.event || 'local'}; hardware ${hardware}; ${plan.cells.length} cells over ${plan.targets.length} targets`)
  const gates: Record<string, GateConfig> = Object.fromEntries(plan.targets.map((t) => [t.id, t.gate]))
  const store = makeStore(options, deps)
  const loaded = behaviour.compare && store ? await loadBaseline(store, hardware, log) : { view: { history: [] } as BaselineView }
  const judge = behaviour.compare ? (cell: CellResult) => judgeCell(cell, loaded.view, gates[cell.target] ?? {}) : undefined

  let cells: CellResult[]
  if (behaviour.measure) {
    cells = []
    for (const target of plan.targets) {
      const targetCells = plan.cells.filter((c) => c.target.id === target.id)
      if (signal.aborted) {
        cells.push(...targetCells.map((c) => errorCell(c, 'cancelled before launch', {})))
        continue
      }
      const measured = await log.group(`${target.id} (${target.engine}${target.quant ? `, ${target.quant}` : ''})`, () =>
        runTarget(target, targetCells, { log, logDir: join(resultsDir, 'logs'), signal, seed: 1, onSpawn: deps.onSpawn, judge }),
      )
      cells.push(...measured)
    }
  } else {
    cells = await readShardResults(resultsDir, plan, log)
    if (judge) for (const cell of cells) if (cell.status === 'ok') cell.verdict = judge(cell)
  }

  if (behaviour.compare && !options.shard) {
    const ran = new Set(cells.map((c) => c.id))
    cells.push(...missingCells(loaded.view, ran, (id) => matchesOnly(id, options.only)))
  }

  const results: ResultsFile = {
    schema: RESULTS_SCHEMA,
    run: { ...runMeta(context, deps.toolVersion, startedAt, options, hardware), finishedAt: new Date().toISOString() },
    cells,
  }
  const tally = runVerdict(cells)
  results.summary = { ...tally, baseline: loaded.ref }

  const renderCtx: RenderContext = {
    configPath: options.config,
    mode: behaviour.name,
    repoUrl: context.repository && context.serverUrl ? `${context.serverUrl}/${context.repository.owner}/${context.repository.repo}` : undefined,
    runUrl: context.runUrl || undefined,
    sha: context.sha || undefined,
  }
  const summary = renderReport(results, renderCtx, SUMMARY_LIMIT)

  const commentUrl = await maybeComment(behaviour, options, deps, tally.verdict, () => renderReport(results, renderCtx, COMMENT_LIMIT))
  await maybeWriteBaseline(behaviour, store, hardware, results, gates, log, signal)

  const failure = failureReason(tally.verdict, tally.regressions, cells, options)
  return finish(resultsDir, options, results, summary, { verdict: tally.verdict, regressions: tally.regressions, commentUrl, failure })
}

function makeStore(options: ActionOptions, deps: PipelineDeps): BaselineStore | undefined {
  if (options.baselineFile) return fileStore(resolve(deps.cwd ?? process.cwd(), options.baselineFile))
  if (!deps.github) return undefined
  return branchStore({ request: deps.github.request, repo: deps.github.repo, branch: options.baselineBranch, log: deps.log })
}

async function loadBaseline(store: BaselineStore, hardware: string, log: Logger): Promise<{ view: BaselineView; ref?: BaselineRef }> {
  try {
    const loaded = await store.load(hardware)
    if (!loaded.ref) log.info(`no baseline for hardware ${hardware} yet: every cell is new and passes`)
    return loaded
  } catch (error) {
    log.warn(`baseline could not be read (${errorMessage(error)}); comparing against nothing`)
    return { view: { history: [] } }
  }
}

async function maybeComment(
  behaviour: Behaviour,
  options: ActionOptions,
  deps: PipelineDeps,
  verdict: RunVerdict,
  body: () => string,
): Promise<string | undefined> {
  const { context, log } = deps
  if (!behaviour.comment || options.comment === 'never' || context.prNumber === undefined) return undefined
  if (options.comment === 'on-regression' && verdict !== 'regression') return undefined
  if (!deps.github) {
    log.warn('no GitHub token or repository: the PR comment was skipped; the job summary has the report')
    return undefined
  }
  try {
    const { url, action } = await upsertComment({ ...deps.github, issueNumber: context.prNumber, configPath: options.config, body: body() })
    log.info(`PR comment ${action}: ${url}`)
    return url
  } catch (error) {
    const status = httpStatus(error)
    const hint = status === 403 ? ' (fork PR or read-only token: grant `pull-requests: write`)' : ''
    log.warn(`the PR comment could not be written${hint}: ${errorMessage(error)}; the job summary has the report`)
    return undefined
  }
}

async function maybeWriteBaseline(
  behaviour: Behaviour,
  store: BaselineStore | undefined,
  hardware: string,
  results: ResultsFile,
  gates: Record<string, GateConfig>,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
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

function failureReason(verdict: RunVerdict, regressions: number, cells: CellResult[], options: ActionOptions): string | undefined {
  const errors = cells.filter((c) => c.verdict.status === 'error').length
  const reasons: string[] = []
  if (verdict === 'regression' && options.failOnRegression) reasons.push(`${regressions} cell(s) regressed`)
  if (errors && options.failOnError) reasons.push(`${errors} cell(s) could not be measured`)
  return reasons.length ? reasons.join('; ') : undefined
}

function runMeta(context: RunContext, version: string, startedAt: string, options: ActionOptions, hardware: string): ResultsFile['run'] {
  return {
    sha: context.sha,
    ref: context.ref,
    event: context.event,
    runUrl: context.runUrl,
    startedAt,
    hardware,
    repository: context.repository ? `${context.repository.owner}/${context.repository.repo}` : undefined,
    config: options.config,
    shard: options.shard || undefined,
    tool: { name: 'llm-bench-gate', version },
  }
}

function emptyResults(context: RunContext, version: string, startedAt: string, options: ActionOptions, hardware: string): ResultsFile {
  return { schema: RESULTS_SCHEMA, run: runMeta(context, version, startedAt, options, hardware), cells: [] }
}

/** Results file name: one per shard so `merge` can read them side by side. */
export function resultsFileName(shard: string): string {
  return shard ? `results-shard-${shard.replace('/', '-of-')}.json` : 'results.json'
}

async function finish(
  resultsDir: string,
  options: ActionOptions,
  results: ResultsFile,
  summary: string,
  outcome: Omit<PipelineResult, 'resultsFile' | 'reportFile' | 'summary'>,
): Promise<PipelineResult> {
  await mkdir(resultsDir, { recursive: true })
  const resultsFile = join(resultsDir, resultsFileName(options.shard))
  const reportFile = join(resultsDir, 'report.md')
  results.summary ??= { verdict: outcome.verdict, regressions: outcome.regressions, counts: {} }
  await writeFile(resultsFile, JSON.stringify(results, null, 2) + '\n')
  await writeFile(reportFile, summary)
  // A shard's page would be partial: the merge run writes the whole leaderboard.
  if (results.cells.length && !options.shard) await writeFile(join(resultsDir, 'leaderboard.html'), renderLeaderboard(results))
  return { ...outcome, resultsFile, reportFile, summary }
}
