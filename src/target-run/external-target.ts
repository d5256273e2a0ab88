/**
 * An `engine: external` target: another benchmark tool measures it. Per round the target's `run` command runs
 * under `bash -c` in its own process group (the least-privilege engine environment plus the target's `env`),
 * bounded by the target's `request-timeout`, and writes its result to `{out}`, a fresh file in the results
 * directory; that file is read in the target's `format` (ingest/) as the round's figures. There is no launch,
 * readiness or smoke request; the cell is judged like any other: more rounds while undecided, a re-measurement
 * while it looks regressed.
 */
import { mkdir, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { errorCell, workloadOf } from './cell-result.js'
import { errorMessage } from '../core/errors.js'
import { formatDuration } from '../core/format.js'
import type { CellPlan, TargetPlan } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import { shellQuote } from '../core/shell.js'
import { ingestFormat, ingestText, ingestedCells, type ToolRun } from '../ingest/index.js'
import type { CellJudge } from '../compare/index.js'
import { measureAndDecide, type CellSource } from './measure-cell.js'
import { engineEnv } from '../server/env.js'
import { groupTask, launchGroup, type LaunchedGroup } from '../server/launch.js'
import type { RunGuard } from '../server/guard.js'
import { terminateGroup } from '../server/process-group.js'
import type { SessionDeps } from './session.js'
import { ensureDir, readRegularFile } from '../io/safe-fs.js'

/** What an external target needs of the run: its log, log directory, cancellation, spawn report, guard and judge. */
export type ExternalDeps = Pick<SessionDeps, 'log' | 'logDir' | 'signal' | 'onSpawn' | 'guard'> & { judge?: CellJudge }

interface External {
  target: TargetPlan
  run: string
  format: string
  deps: ExternalDeps
}

/** Runs every cell of an external target; never throws, a failure becomes an `error` cell naming it. */
export async function runExternalTarget(
  target: TargetPlan,
  cells: CellPlan[],
  deps: ExternalDeps,
): Promise<CellResult[]> {
  // The matrix file requires both (the adapter's requiredOptions).
  const ext: External = {
    target,
    run: String(target.engineOptions.run),
    format: String(target.engineOptions.format),
    deps,
  }
  const results: CellResult[] = []
  for (const cell of cells) {
    try {
      results.push(await externalCell(cell, ext))
    } catch (error) {
      const reason = deps.signal.aborted ? 'cancelled' : errorMessage(error)
      deps.log.error(`${cell.id}: ${reason}`)
      results.push(errorCell(cell, reason, { launch: ext.run }))
    }
  }
  return results
}

function externalCell(cell: CellPlan, ext: External): Promise<CellResult> {
  return measureAndDecide(cell, externalSource(cell, ext), ext.deps.judge, ext.deps.log)
}

/** A cell's measurements by the target's command: each round runs it once; a re-measurement is a new set of rounds. */
function externalSource(cell: CellPlan, ext: External): CellSource {
  const rounds = async (count: number, first: number): Promise<ToolRun[]> => {
    const out: ToolRun[] = []
    for (let i = 0; i < count; i++) out.push(...(await runRound(cell, first + i, ext)))
    return out
  }
  // The first measurement's rounds, which added rounds extend.
  let runs: ToolRun[] = []
  return {
    fresh: false,
    async measure(attempt) {
      const measured = await rounds(cell.target.settings.rounds, REMEASURE_ROUND_STRIDE * attempt)
      if (attempt === 0) runs = measured
      return asCell(cell, measured, ext)
    },
    async addRounds(more) {
      runs = [...runs, ...(await rounds(more, runs.length))]
      return asCell(cell, runs, ext)
    },
  }
}

/** Round numbers of a re-measurement start here, so its `{round}` and `{out}` never repeat the first measurement's. */
const REMEASURE_ROUND_STRIDE = 1000

/**
 * The rounds as the plan's cell: its id, workload and target, the tool's figures. The scenario is what the command
 * was asked for (its placeholders), so the achieved lengths are checked against it (ingest/lengths.ts): a command
 * that ignores `{input-tokens}`/`{output-tokens}`, or whose outputs stop early, is flagged `lengths-missed:`.
 */
function asCell(cell: CellPlan, runs: ToolRun[], ext: External): CellResult {
  const { scenario, target } = cell
  const workload = workloadOf(scenario, target.settings)
  const check = { inputTokens: scenario.inputTokens, outputTokens: scenario.outputTokens }
  const placed = runs.map((r) => ({ ...r, target: target.id, scenario: scenario.id, workload, check }))
  const [ingested] = ingestedCells(ext.format, placed, target.settings.discard)
  return {
    ...ingested,
    id: cell.id,
    quant: target.quant ?? null,
    model: target.model ?? ingested.model,
    info: { ...ingested.info, launch: ext.run },
  }
}

/** How long, after `run` exited and its group was stopped, the round waits for the last of its output. */
const DRAIN_MS = 2000

/** `run` with this round's placeholders filled, each value quoted for the shell. */
function command(cell: CellPlan, out: string, round: number, ext: External): string {
  const { scenario } = cell
  const values: Record<string, string> = {
    out,
    url: cell.target.url,
    round: String(round + 1),
    'input-tokens': String(scenario.inputTokens),
    'output-tokens': String(scenario.outputTokens),
    concurrency: String(scenario.concurrency),
    requests: String(scenario.requests),
    rate: scenario.rate === undefined ? 'inf' : String(scenario.rate),
  }
  return ext.run.replace(/(?<!\$)\{([a-z-]+)\}/g, (whole, name: string) =>
    values[name] === undefined ? whole : shellQuote(values[name]),
  )
}

/** Stops what is left of a round's group. Seen gone, its id may be reused: the guard forgets it. */
async function stopRound(group: LaunchedGroup, guard: RunGuard | undefined) {
  const outcome = await terminateGroup(group.pgid)
  if (outcome !== 'stuck') guard?.forget(groupTask(group))
  return outcome
}

/**
 * One round: the command writes `{out}`, which is read back in the target's format. A cancelled run starts no
 * round. The round is bounded by `request-timeout`; when `run` exits, what it left running in its group (a
 * background job still holding its output) is stopped with the round, and the output is waited for only a
 * moment. The group is registered with the run's guard, so the watchdog and the post step stop it too.
 */
async function runRound(cell: CellPlan, round: number, ext: External): Promise<ToolRun[]> {
  const { deps } = ext
  if (deps.signal.aborted) throw new Error('cancelled')
  const name = `${cell.id.replace(/[^A-Za-z0-9._-]+/g, '_')}-round-${round + 1}`
  const resultsDir = dirname(deps.logDir)
  const out = join(resultsDir, 'external', `${name}.out`)
  // {out} lies in the results directory, which a PR can fill with symlinks: none is followed on the way.
  ensureDir(dirname(out), resultsDir)
  await rm(out, { force: true })
  const text = command(cell, out, round, ext)
  const { env } = engineEnv(process.env, cell.target.settings.passEnv, cell.target.env)
  await mkdir(deps.logDir, { recursive: true })
  const group = await launchGroup({ command: text, env, logPath: join(deps.logDir, `${cell.target.id}.log`) })
  deps.onSpawn?.(group.pgid, group.start)
  deps.guard?.register(groupTask(group))
  const stop = () => stopRound(group, deps.guard)
  const timeoutMs = cell.target.settings.requestTimeoutMs
  deps.log.info(`${cell.id}: round ${round + 1}: ${text}`)
  // The timer ends with the round, or with the run's cancellation.
  const timer = new AbortController()
  const cancel = (): void => timer.abort()
  deps.signal.addEventListener('abort', cancel)
  try {
    const ended = await Promise.race([
      group.exit,
      delay(timeoutMs, 'timeout' as const, { signal: timer.signal }).catch(() => 'cancelled' as const),
    ])
    if (typeof ended === 'string') {
      await stop()
      throw new Error(
        ended === 'timeout' ? `run: no result within ${formatDuration(timeoutMs)} (request-timeout)` : 'cancelled',
      )
    }
    // What `run` left in its group ends with the round; a holder of its output outside the group is not waited on.
    const left = await stop()
    if (left !== 'gone')
      deps.log.warn(`${cell.id}: round ${round + 1}: run left processes in its group; stopped (${left})`)
    const drained = await Promise.race([group.drained.then(() => true), delay(DRAIN_MS, false)])
    if (!drained)
      deps.log.warn(`${cell.id}: round ${round + 1}: run's output is still held open after it exited; not waiting`)
    if (ended.code !== 0)
      throw new Error(
        `run exited with ${ended.signal ? `signal ${ended.signal}` : `code ${ended.code}`}; last log lines:\n${group.log.tail(10)}`,
      )
  } finally {
    timer.abort()
    deps.signal.removeEventListener('abort', cancel)
    group.log.close()
  }
  let result: string
  try {
    result = await readRegularFile(out)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new Error(`run wrote no result to {out} (${out})`, { cause: error })
    throw new Error(`{out} (${out}) cannot be read: ${errorMessage(error)}`, { cause: error })
  }
  return ingestText(ingestFormat(ext.format), result, out)
}
