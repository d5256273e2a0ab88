/**
 * The measuring stage of a run: the targets one after another under the run's guard, each handed its cells, the
 * judge and — on a pull request that compares — the same-box A/B's base arm, prepared once before the first
 * target and removed when measuring ends; or, in merge mode, the shards' results files read and judged.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CellJudge } from '../compare/index.js'
import type { Logger } from '../core/log.js'
import type { MemoryFloor, Plan } from '../core/plan.js'
import type { CellResult, ShardTally } from '../core/results.js'
import { createRunGuard, makeRunId, readMemInfo, type MemInfo, type RunGuard } from '../server/index.js'
import { waitMemoryReleased } from '../server/memory-release.js'
import { errorCell } from '../target-run/cell-result.js'
import { runTarget, type TargetRunDeps } from '../target-run/run-target.js'
import { sameBoxRun, type SameBoxRun } from '../target-run/same-box.js'
import { prepareBaseArm } from './base-arm.js'
import type { Behaviour, RunContext } from './context.js'
import { shardAb } from './shard-ab.js'
import { readShardResults } from './shard-files.js'

/** What measuring needs of the run. */
export interface MeasureDeps {
  log: Logger
  context: RunContext
  signal: AbortSignal
  resultsDir: string
  /** The run's working directory: the base arm's plan is the same folder in its worktree. */
  cwd: string
  /** Judges each cell; absent when the run only measures. */
  judge?: CellJudge
  onSpawn?: (pgid: number, start?: number) => void
  /** The run's guard; without one, measuring makes its own (a fresh run id, a watchdog) and closes it at the end. */
  guard?: RunGuard
  readMemory?: () => Promise<MemInfo>
  /** Where the base commit's worktree goes (RUNNER_TEMP on a runner). */
  tempDir?: string
}

/** The run's judged cells: measured target by target (judged as they go), or in merge mode read from the shards. */
export async function measure(
  plan: Plan,
  behaviour: Behaviour,
  deps: MeasureDeps,
): Promise<{ cells: CellResult[]; shards?: ShardTally }> {
  if (!behaviour.measure) return readShards(plan, behaviour, deps)
  const guard = deps.guard ?? createRunGuard({ runId: makeRunId(), log: deps.log })
  try {
    return { cells: await measureTargets(plan, behaviour, { ...deps, guard }) }
  } finally {
    if (!deps.guard) await guard.close()
  }
}

/** Merge mode: the shards' cells judged on the whole run's baseline, with what each shard's A/B said. */
async function readShards(plan: Plan, behaviour: Behaviour, deps: MeasureDeps) {
  const read = await readShardResults(deps.resultsDir, plan, deps.log)
  const { judge } = deps
  if (!judge) return read
  const judged = read.cells.map((cell) => judge.decide({ read: cell }))
  // As in a run that measures: the A/B (here the shards') belongs to a run that compares without writing the baseline.
  return { ...read, cells: behaviour.writeBaseline ? judged : shardAb(judged, read, judge) }
}

/** Every target of the plan, with the same-box A/B's base arm when the run compares on a pull request. */
async function measureTargets(
  plan: Plan,
  behaviour: Behaviour,
  deps: MeasureDeps & { guard: RunGuard },
): Promise<CellResult[]> {
  // GPU processes in groups this run launched are ours, not strays.
  const groups = new Set<number>()
  const targetDeps: TargetRunDeps = {
    log: deps.log,
    logDir: join(deps.resultsDir, 'logs'),
    signal: deps.signal,
    seed: 1,
    onSpawn: (pgid, start) => {
      groups.add(pgid)
      deps.onSpawn?.(pgid, start)
    },
    guard: deps.guard,
    judge: deps.judge,
    host: { groups },
    readMemory: deps.readMemory,
  }
  // A run that writes the baseline measures the default branch itself: there is no base to compare with.
  const abTargets = plan.targets.filter((t) => !t.external && t.settings.ab.mode !== 'off')
  const base =
    deps.judge && !behaviour.writeBaseline && abTargets.length
      ? await prepareBaseArm({ ...deps, tempDir: deps.tempDir ?? tmpdir(), plan })
      : undefined
  try {
    return await eachTarget(plan, { ...targetDeps, sameBox: base && sameBoxRun(base) })
  } finally {
    if (base && 'checkout' in base) await base.checkout.remove()
  }
}

/** The targets one after another, each launched once the previous one's memory is back. */
async function eachTarget(plan: Plan, deps: TargetRunDeps & { sameBox?: SameBoxRun }): Promise<CellResult[]> {
  const { log, signal } = deps
  const read = deps.readMemory ?? readMemInfo
  const cells: CellResult[] = []
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
    const label = `${target.id} (${target.engine}${target.quant ? `, ${target.quant}` : ''})`
    cells.push(...(await log.group(label, () => runTarget(target, targetCells, deps))))
  }
  return cells
}
