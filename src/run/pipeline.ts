/**
 * plan → baseline → measure (per target: launch, measure, compare, confirm, teardown; or read the
 * shards' results in merge mode) → assemble the results file → publish: report, comment, store.
 * Takes plain data and ports; the runner and the CLI are its only callers.
 */
import { resolve } from 'node:path'
import { assembleResults } from './assemble.js'
import { cellsOfRun, loadBaseline, makeStore, type LoadedBaseline } from './baseline-source.js'
import { cellJudge, rulesByTarget, type CellJudge } from '../compare/index.js'
import { errorCell, skippedCell } from '../target-run/cell-result.js'
import { selectChangedTargets, type ChangedSelection } from './changed-files.js'
import { formatPlan, loadPlan } from '../config/index.js'
import type { ActionOptions } from '../config/inputs.js'
import { baselineWriteRefusal, resolveBehaviour, type Behaviour, type RunContext } from './context.js'
import { ConfigError, UnreadableConfigError } from '../core/errors.js'
import { boundedGitHub, type ApiTimeouts, type BoundedGitHub, type GitHubApi } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import type { Plan } from '../core/plan.js'
import { RESULTS_SCHEMA, type CellResult, type ResultsFile } from '../core/results.js'
import { detectHardware, hardwareKey } from './hardware.js'
import { measure } from './measure-targets.js'
import { publish, writeOutputs, type PipelineResult, type Publication, type RunOutcome } from './publish.js'
import { configErrorNotice, couldNotRunNotice, dryRunNotice } from '../report/index.js'
import type { RunGuard } from '../server/index.js'
import { bisectAfter, bisectPlan } from './bisect-stage.js'
import type { MemInfo } from '../server/index.js'
import { redact, redacted } from '../core/redact.js'

export type { PipelineResult } from './publish.js'

export interface PipelineDeps {
  options: ActionOptions
  context: RunContext
  log: Logger
  toolVersion: string
  /** GitHub API access; absent outside Actions or without a token. Every call is bounded (API_TIMEOUTS). */
  github?: GitHubApi
  /** The bounds of GitHub API calls (default API_TIMEOUTS); tests shorten them. */
  apiTimeouts?: ApiTimeouts
  /**
   * Called once the results file, the report and the pages are written, before any GitHub API call of the
   * publish stage, and again when the report changes after one (the dashboard link): the runner writes the
   * job summary and the step outputs from it, so a GitHub that never answers cannot keep them back.
   */
  onOutputs?: (written: PipelineResult) => Promise<void>
  signal?: AbortSignal
  onSpawn?: (pgid: number, start?: number) => void
  /** The run's guard; without one the pipeline makes its own (a fresh run id, a watchdog) and closes it when measuring ends. */
  guard?: RunGuard
  detectHardware?: () => Promise<string>
  cwd?: string
  /** Available memory (default: /proc/meminfo); tests inject one. */
  readMemory?: () => Promise<MemInfo>
  /** Where temporary checkouts go (the base commit's worktree): RUNNER_TEMP on a runner; default the system's. */
  tempDir?: string
}

/** What the stages of one run share. */
interface Run {
  cwd: string
  resultsDir: string
  behaviour: Behaviour
  signal: AbortSignal
  /** The GitHub API with every call bounded and cancelled with the run; absent without a token. */
  github?: BoundedGitHub
  meta(hardware: string): ResultsFile['run']
  /** Ends a run that measured nothing: its empty results file and the notice that says why. */
  nothingRun(hardware: string, summary: string, outcome: RunOutcome): Promise<PipelineResult>
}

export async function runPipeline(deps: PipelineDeps): Promise<PipelineResult> {
  const { options, context, log } = deps
  const cwd = deps.cwd ?? process.cwd()
  const resultsDir = resolve(cwd, options.resultsDir)
  const startedAt = new Date().toISOString()
  const behaviour = resolveBehaviour(options.mode, context)
  const meta = (hardware: string) =>
    runMeta(context, { version: deps.toolVersion, startedAt, mode: behaviour.name }, options, hardware)
  const signal = deps.signal ?? new AbortController().signal
  const run: Run = {
    cwd,
    resultsDir,
    behaviour,
    signal,
    // The one place the port is wrapped: whatever reaches GitHub below goes through these bounds.
    github: deps.github && boundedGitHub(deps.github, signal, deps.apiTimeouts),
    meta,
    nothingRun: (hardware, summary, outcome) =>
      writeOutputs(
        resultsDir,
        options.shard,
        redacted({ schema: RESULTS_SCHEMA, run: meta(hardware), cells: [] }),
        summary,
        outcome,
      ),
  }
  let plan: Plan
  try {
    plan = await loadPlan(options.config, { only: options.only, shard: options.shard || undefined, cwd })
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    const summary = configErrorNotice(options.config, error.problems)
    if (error instanceof UnreadableConfigError) return nothingWritten(error, summary)
    return run.nothingRun('unknown', summary, {
      verdict: 'error',
      regressions: 0,
      failure: error.message,
      configError: true,
    })
  }
  if (options.dryRun) {
    const text = formatPlan(plan)
    log.info(text)
    return run.nothingRun(plan.hardware ?? 'unknown', dryRunNotice(run.behaviour.name, text), {
      verdict: 'pass',
      regressions: 0,
    })
  }
  if (run.behaviour.name === 'bisect') return bisectPlan(plan, run, deps)
  const refused = baselineWriteRefusal(run.behaviour, context, options.baselineFile ? 'file' : run.github && 'branch')
  if (refused)
    return run.nothingRun(plan.hardware ?? 'unknown', couldNotRunNotice(refused), {
      verdict: 'error',
      regressions: 0,
      failure: refused,
      configError: true,
    })
  return measurePlan(plan, run, deps)
}

/** A matrix file that cannot be read is a mistyped path: said in the summary, with nothing written anywhere. */
function nothingWritten(error: UnreadableConfigError, summary: string): PipelineResult {
  return {
    verdict: 'error',
    regressions: 0,
    failure: redact(error.message),
    configError: true,
    resultsFile: '',
    reportFile: '',
    summary: redact(summary),
  }
}

/** The hardware key and the baseline, then the cells measured (or read) and judged, assembled and published. */
async function measurePlan(plan: Plan, run: Run, deps: PipelineDeps): Promise<PipelineResult> {
  const { options, context, log } = deps
  const { behaviour, resultsDir, signal } = run
  const hardware = await hardwareKey(options.hardware, plan.hardware, deps.detectHardware ?? (() => detectHardware()))
  log.info(
    `mode ${behaviour.name} on ${context.event || 'local'}; hardware ${hardware}; ${plan.cells.length} cells over ${plan.targets.length} targets`,
  )
  const store = makeStore(options, deps, run.github, behaviour.writeBaseline)
  const loaded = behaviour.compare && store ? await loadBaseline(store, hardware, log) : { view: { history: [] } }
  if ('configError' in loaded) return unusableBaselineFile(run, hardware, options.baselineFile, loaded.configError)
  const baseline: LoadedBaseline = 'unreadable' in loaded ? { view: { history: [] } } : loaded
  const runCells =
    behaviour.compare && !options.shard ? await cellsOfRun(plan, baseline, store, hardware, behaviour, deps) : undefined
  // A default-branch run also looks at each cell's level over main's runs for creep (compare/creep.ts).
  const creep = behaviour.writeBaseline ? { creep: { sha: context.sha } } : {}
  const judge = behaviour.compare ? cellJudge(baseline.view, plan.targets, runCells, creep) : undefined

  const changed = options.select === 'changed' && behaviour.measure && !('unreadable' in loaded)
  const select = (github?: GitHubApi) => selectChangedTargets(plan, { ...deps, ...context, github })
  const chosen = changed
    ? await (run.github ? run.github.operation("reading the PR's changed files", select) : select())
    : undefined
  if (chosen) log.info(chosen.note)
  // Fail closed: without the baseline nothing can be compared, so nothing is launched and every cell says why.
  const measured =
    'unreadable' in loaded
      ? { cells: plan.cells.map((c) => errorCell(c, `not measured: ${loaded.unreadable}`, {})) }
      : await measure(chosen?.plan ?? plan, behaviour, { ...deps, resultsDir, signal, judge, cwd: run.cwd })
  const shards = 'shards' in measured ? measured.shards : undefined
  const { results, tally } = assembleResults({
    run: {
      ...run.meta(hardware),
      finishedAt: new Date().toISOString(),
      ...(chosen && { selection: chosen.note }),
      ...(shards && { shards }),
    },
    cells: [...measured.cells, ...skippedCells(plan, chosen, judge)],
    missing: runCells && judge && { view: baseline.view, selected: runCells.selected, renames: judge.renames },
    baseline: baseline.ref,
    acceptance: behaviour.compare ? context.acceptance : undefined,
  })
  const publication: Publication = {
    results,
    tally,
    behaviour,
    store,
    hardware,
    rules: rulesByTarget(plan.targets),
    resultsDir,
    signal,
    history: baseline.view.history,
  }
  const published = await publish(publication, { ...deps, github: run.github })
  if (!behaviour.writeBaseline) return published
  return bisectAfter(plan, publication, published, run, deps)
}

/** An unusable `baseline-file` ends the run as a bad matrix file does: nothing launched, every problem listed. */
function unusableBaselineFile(run: Run, hardware: string, file: string, error: ConfigError): Promise<PipelineResult> {
  return run.nothingRun(hardware, configErrorNotice(file, error.problems), {
    verdict: 'error',
    regressions: 0,
    failure: error.message,
    configError: true,
  })
}

/** The cells of the targets `select: changed` left out, with their baseline figures when the run compares. */
function skippedCells(plan: Plan, chosen: ChangedSelection | undefined, judge: CellJudge | undefined): CellResult[] {
  const skipped = new Set(chosen?.skipped.map((t) => t.id))
  return plan.cells
    .filter((c) => skipped.has(c.target.id))
    .map((c) => (judge ? judge.decide({ measured: [skippedCell(c)] }) : skippedCell(c)))
}

function runMeta(
  context: RunContext,
  { version, startedAt, mode }: { version: string; startedAt: string; mode: Behaviour['name'] },
  options: ActionOptions,
  hardware: string,
): ResultsFile['run'] {
  return {
    sha: context.sha,
    ref: context.ref,
    event: context.event,
    runUrl: context.runUrl,
    startedAt,
    hardware,
    repository: context.repository ? `${context.repository.owner}/${context.repository.repo}` : undefined,
    config: options.config,
    mode,
    shard: options.shard || undefined,
    tool: { name: 'llm-bench-gate', version },
  }
}
