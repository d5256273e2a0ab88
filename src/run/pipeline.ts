/**
 * plan → baseline → measure (per target: launch, measure, compare, confirm, teardown; or read the
 * shards' results in merge mode) → assemble the results file → publish: report, comment, store.
 * Takes plain data and ports; the runner and the CLI are its only callers.
 */
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { assembleResults } from './assemble.js'
import { cellJudge, judgeAll, type CellJudge, type TargetRules } from '../target/cell-judge.js'
import { errorCell, skippedCell, workloadOf } from '../target/cell-result.js'
import { selectChangedTargets, type ChangedSelection } from './changed-files.js'
import { isFirstRun, type BaselineView, type RunCells } from '../compare/index.js'
import { formatPlan, loadPlan, matchesOnly } from '../config/index.js'
import type { ActionOptions } from '../config/inputs.js'
import { baselineWriteRefusal, resolveBehaviour, type Behaviour, type RunContext } from './context.js'
import { ConfigError, errorMessage } from '../core/errors.js'
import {
  boundedGitHub,
  type ApiTimeouts,
  type BoundedGitHub,
  type GitHubApi,
  type OperationApi,
} from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import type { MemoryFloor, Plan } from '../core/plan.js'
import {
  RESULTS_SCHEMA,
  type BaselineRef,
  type CellResult,
  type ResultsFile,
  type ShardTally,
} from '../core/results.js'
import { detectHardware, hardwareKey } from './hardware.js'
import { readShardResults } from './shard-files.js'
import { shardAb } from './shard-ab.js'
import { publish, writeOutputs, type PipelineResult, type RunOutcome } from './publish.js'
import { configErrorNotice, couldNotRunNotice, dryRunNotice } from '../report/index.js'
import { runTarget, type TargetRunDeps } from '../target/run-target.js'
import { sameBox, type SameBox } from './same-box.js'
import { createRunGuard, makeRunId, type RunGuard } from '../server/index.js'
import { branchStore, fileStore, type BaselineStore } from '../store/index.js'
import { readMemInfo, type MemInfo } from '../server/index.js'
import { waitMemoryReleased } from '../server/memory-release.js'
import { redacted } from '../core/redact.js'

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

interface LoadedBaseline {
  view: BaselineView
  ref?: BaselineRef
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
  if ('configError' in loaded) {
    const { problems, message } = loaded.configError
    return run.nothingRun(hardware, configErrorNotice(options.baselineFile, problems), {
      verdict: 'error',
      regressions: 0,
      failure: message,
      configError: true,
    })
  }
  const baseline: LoadedBaseline = 'unreadable' in loaded ? { view: { history: [] } } : loaded
  const rules: Record<string, TargetRules> = Object.fromEntries(
    plan.targets.map((t) => [t.id, { gate: t.gate, noiseFloor: t.settings.noiseFloor }]),
  )
  const runCells =
    behaviour.compare && !options.shard ? await cellsOfRun(plan, baseline, store, hardware, behaviour, deps) : undefined
  const judge = behaviour.compare
    ? cellJudge(baseline.view, (target) => rules[target] ?? { gate: {} }, runCells)
    : undefined

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
      : await measure(chosen?.plan ?? plan, behaviour, { deps, resultsDir, signal, judge, cwd: run.cwd })
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
  return publish(
    { results, tally, behaviour, store, hardware, rules, resultsDir, signal, history: baseline.view.history },
    { ...deps, github: run.github },
  )
}

interface MeasureContext {
  deps: PipelineDeps
  resultsDir: string
  signal: AbortSignal
  judge: CellJudge | undefined
  cwd: string
}

/** The run's judged cells: measured target by target (judged as they go), or in merge mode read from the shards' results files and judged. */
async function measure(
  plan: Plan,
  behaviour: Behaviour,
  m: MeasureContext,
): Promise<{ cells: CellResult[]; shards?: ShardTally }> {
  const { deps, resultsDir, judge } = m
  const { log } = deps
  if (!behaviour.measure) {
    const read = await readShardResults(resultsDir, plan, log)
    if (!judge) return read
    const judged = judgeAll(read.cells, judge)
    // As in a run that measures: the A/B (here the shards') belongs to a run that compares without writing the baseline.
    return { ...read, cells: behaviour.writeBaseline ? judged : shardAb(judged, read, plan) }
  }
  const guard = deps.guard ?? createRunGuard({ runId: makeRunId(), log })
  try {
    return { cells: await measureTargets(plan, behaviour, m, guard) }
  } finally {
    if (!deps.guard) await guard.close()
  }
}

async function measureTargets(
  plan: Plan,
  behaviour: Behaviour,
  m: MeasureContext,
  guard: RunGuard,
): Promise<CellResult[]> {
  const { deps, resultsDir, signal, judge } = m
  const { log } = deps
  const cells: CellResult[] = []
  // GPU processes in groups this run launched are ours, not strays.
  const groups = new Set<number>()
  const onSpawn = (pgid: number, start?: number) => {
    groups.add(pgid)
    deps.onSpawn?.(pgid, start)
  }
  const targetDeps: TargetRunDeps = {
    log,
    logDir: join(resultsDir, 'logs'),
    signal,
    seed: 1,
    onSpawn,
    guard,
    judge,
    host: { groups },
    readMemory: deps.readMemory,
  }
  // A run that writes the baseline measures the default branch itself: there is no base to compare with.
  const box =
    judge && !behaviour.writeBaseline
      ? sameBox(plan, {
          context: deps.context,
          cwd: m.cwd,
          tempDir: deps.tempDir ?? tmpdir(),
          guard,
          signal,
          log,
          deps: targetDeps,
        })
      : undefined
  try {
    return await eachTarget(plan, { ...m, targetDeps, box }, cells)
  } finally {
    await box?.close()
  }
}

async function eachTarget(
  plan: Plan,
  m: MeasureContext & { targetDeps: TargetRunDeps; box?: SameBox },
  cells: CellResult[],
): Promise<CellResult[]> {
  const { deps, signal, targetDeps, box } = m
  const { log } = deps
  const read = deps.readMemory ?? readMemInfo
  // The last launched target and the memory available just before it launched.
  let previous: { previous: string; before: MemInfo; floor: MemoryFloor } | undefined
  for (const target of plan.targets) {
    const targetCells = plan.cells.filter((c) => c.target.id === target.id)
    if (signal.aborted) {
      cells.push(...targetCells.map((c) => errorCell(c, 'cancelled before launch', {})))
      continue
    }
    if (!target.external) {
      if (previous) await waitMemoryReleased({ ...previous, log, signal, read })
      const before = await read().catch(() => undefined)
      previous = before && { previous: target.id, before, floor: target.settings.memoryFloor }
    }
    const measured = await log.group(
      `${target.id} (${target.engine}${target.quant ? `, ${target.quant}` : ''})`,
      async () => {
        const started = Date.now()
        const own = await runTarget(target, targetCells, targetDeps)
        return box && !target.external ? box.test(target, own, Date.now() - started) : own
      },
    )
    cells.push(...measured)
  }
  return cells
}

/** The cells of the targets `select: changed` left out, with their baseline figures when the run compares. */
function skippedCells(plan: Plan, chosen: ChangedSelection | undefined, judge: CellJudge | undefined): CellResult[] {
  const skipped = new Set(chosen?.skipped.map((t) => t.id))
  return plan.cells
    .filter((c) => skipped.has(c.target.id))
    .map((c) => (judge ? judge.decide([skippedCell(c)]) : skippedCell(c)))
}

/** The baseline-file, or the data branch: each read and each write one bounded operation of the API. */
function makeStore(
  options: ActionOptions,
  deps: PipelineDeps,
  github: BoundedGitHub | undefined,
  writes: boolean,
): BaselineStore | undefined {
  if (options.baselineFile) {
    const cwd = deps.cwd ?? process.cwd()
    const path = resolve(cwd, options.baselineFile)
    // Reports name it relative to the workspace: a runner's absolute paths say nothing to a reviewer.
    const inside = relative(cwd, path)
    return fileStore(path, inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : options.baselineFile)
  }
  if (!github) return undefined
  const on = (api: OperationApi) =>
    branchStore({ ...api, branch: options.baselineBranch, log: deps.log, replaceUnreadable: writes })
  return {
    kind: 'branch',
    load: (hardware) => github.operation('the baseline read', (api) => on(api).load(hardware)),
    save: (...update) => github.operation('the baseline write', (api) => on(api).save(...update)),
    keys: () => github.operation("listing the store's hardware keys", (api) => on(api).keys()),
  }
}

/**
 * The baseline, or why there is none. A missing branch or file is "no baseline yet" (the store returns no ref);
 * any other failure to read the store is not: the run is an error naming the file and the reason, never a
 * silent "new, passes". An unusable `baseline-file` is the configuration's fault, like a bad matrix file.
 */
/**
 * What the judge needs to know of the whole run (a shard sees only its part; the merge run judges the whole):
 * every planned cell, `only` for the baseline cells that are not this run's, and on a first run that does not
 * write the baseline, the other hardware keys the store holds.
 */
async function cellsOfRun(
  plan: Plan,
  baseline: LoadedBaseline,
  store: BaselineStore | undefined,
  hardware: string,
  behaviour: Behaviour,
  deps: PipelineDeps,
): Promise<RunCells> {
  const { options, log } = deps
  const cells = plan.cells.map((c) => ({
    id: c.id,
    target: c.target.id,
    scenario: c.scenario.id,
    engine: c.target.engine,
    quant: c.target.quant ?? null,
    workload: workloadOf(c.scenario, c.target.settings),
  }))
  const run: RunCells = { cells, selected: (id) => matchesOnly(id, options.only) }
  if (!isFirstRun(baseline.view) || !store?.keys || behaviour.writeBaseline) return run
  try {
    const others = (await store.keys()).filter((key) => key !== hardware)
    return { ...run, hardware: { key: hardware, others } }
  } catch (error) {
    log.warn(`could not list the store's hardware keys (${errorMessage(error)}): a first run on ${hardware} passes`)
    return run
  }
}

async function loadBaseline(
  store: BaselineStore,
  hardware: string,
  log: Logger,
): Promise<LoadedBaseline | { unreadable: string } | { configError: ConfigError }> {
  try {
    const loaded = await store.load(hardware)
    if (!loaded.ref) log.info(`no baseline for hardware ${hardware} yet: every cell is new and passes`)
    return loaded
  } catch (error) {
    if (error instanceof ConfigError && store.kind === 'file') {
      log.error(`baseline-file could not be used: ${error.problems.join('; ')}`)
      return { configError: error }
    }
    const reason = `the baseline could not be read (${errorMessage(error)})`
    log.error(`${reason}: the run fails closed, nothing is compared or launched`)
    return { unreadable: reason }
  }
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
