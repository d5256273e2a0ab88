/**
 * The launches of a same-box A/B (docs/same-box.md): the target as the PR's base commit defines it and as the PR does,
 * launched one after the other in ABBA order (base, PR, PR, base, …), each launch measuring the wanted cells once
 * — its cold round discarded, the warm rounds the caller allots kept (compare/ab-rounds.ts) — and torn down before the
 * next starts. Both launches of a pair send the same prompts and arrivals (one seed per pair), so what differs
 * between them is the code and the launch. A launch that fails ends the A/B: an A/B with a launch missing cannot be
 * paired, and the stored-baseline verdict stands.
 *
 * From the minimum (`ab-launches` per arm) on, the launches go on one pair (a launch of each arm, in the ABBA order)
 * at a time while the caller says the verdict is still undecided, up to `ab-max-launches` per arm and while the next
 * pair's base launch fits in what is left of `ab-budget`; why they ended is said. The sequential test looks after
 * every pair: a test that may stop after any observation needs the fewest on average (Wald and Wolfowitz 1948), and
 * looking after every pair rather than every two cost no error rate the Monte-Carlo tests could see.
 */
import { abMoreRounds, abOrder, type AbRun } from '../compare/index.js'
import { formatDuration } from '../core/format.js'
import { errorMessage } from '../core/errors.js'
import type { CellPlan, TargetPlan } from '../core/plan.js'
import type { AbArm, CellResult, TargetInfo } from '../core/results.js'
import { readMemInfo, type MemInfo, type RunningTarget } from '../server/index.js'
import { waitMemoryReleased } from '../server/memory-release.js'
import { measuredCell } from './cell-result.js'
import { measureCell, type MeasureCellOptions } from './measure-cell.js'
import { engineFingerprint } from './host-check.js'
import { launchFigures } from './run-target.js'
import type { SessionDeps } from './session.js'
import { TargetSession } from './session.js'

/** Seed distance of the A/B's pairs from the cell's own measurement and its re-measurements. */
const AB_SEED_OFFSET = 100_000

export interface AbArms {
  /** The target and its wanted cells as the base commit defines them (its launch runs in the base's worktree). */
  base: { target: TargetPlan; cells: CellPlan[] }
  /** The same cells as the PR defines them. */
  pr: { target: TargetPlan; cells: CellPlan[] }
  /** Launches per arm at least. */
  launches: number
  /** Launches per arm at most (`ab-max-launches`); past the minimum, one pair at a time. */
  maxLaunches: number
  /** Warm rounds each launch measures of a cell, by cell id (compare/ab-rounds.ts); absent: the cell's own. */
  warmRounds?: ReadonlyMap<string, number>
  /** Whether the launches so far leave a cell undecided (another pair could decide it); none: stop at the minimum. */
  undecided?(launches: readonly AbLaunchResult[]): boolean
}

/** One launch of the A/B as the judge reads it (compare/ab-verdict.ts). */
export type AbLaunchResult = AbRun

export interface AbLaunchDeps extends SessionDeps {
  seed: number
  /** Engine time the base arm may still take, ms: no base launch starts past it, and one in flight ends at it. */
  budgetLeftMs(): number
  /** Called with each base launch's engine time. */
  spend(ms: number): void
  /** The setting that bounds the engine time, for the reasons said (default `ab-budget`; a bisection's `bisect-budget`). */
  budgetName?: string
}

export interface AbLaunches {
  launches: AbLaunchResult[]
  /** Why the A/B ended before its last launch. */
  stopped?: string
  /** Why no more launches ran while a cell was still undecided (the most per arm, or the budget). */
  ended?: string
}

/** Whether another pair of launches may run after `done` launches, or why not. */
function anotherPair(arms: AbArms, done: readonly AbLaunchResult[], deps: AbLaunchDeps): true | string | undefined {
  const perArm = done.length / 2
  if (perArm < arms.launches) return true
  if (!arms.undecided?.(done)) return undefined
  if (perArm + 1 > arms.maxLaunches)
    return `still undecided after ${perArm} launches per arm, the most this A/B runs (ab-max-launches ${arms.maxLaunches})`
  const base = done.filter((l) => l.arm === 'base').map((l) => l.engineMs)
  const next = base.reduce((a, b) => a + b, 0) / Math.max(1, base.length)
  const left = deps.budgetLeftMs()
  if (next > left)
    return `still undecided after ${perArm} launches per arm; another pair (a base launch of about ${formatDuration(next)}) would not fit the ${formatDuration(Math.max(0, left))} left of ${deps.budgetName ?? 'ab-budget'}`
  return true
}

/** Runs the launches in ABBA order, pair after pair while a cell is undecided (see the header); never throws. */
export async function runAbLaunches(arms: AbArms, deps: AbLaunchDeps): Promise<AbLaunches> {
  const order = abOrder(Math.max(arms.launches, arms.maxLaunches))
  const launches: AbLaunchResult[] = []
  const read = deps.readMemory ?? readMemInfo
  let before: MemInfo | undefined
  for (const [i, arm] of order.entries()) {
    const nth = order.slice(0, i + 1).filter((a) => a === arm).length
    const name = `${arm === 'base' ? 'base' : 'PR'} launch ${nth}`
    // From the minimum's end on, the test looks after every pair.
    const more = i >= 2 * arms.launches && i % 2 === 0 ? anotherPair(arms, launches, deps) : true
    if (more !== true) return { launches, ...(more && { ended: more }) }
    if (deps.signal.aborted) return { launches, stopped: `cancelled before the ${name}` }
    if (arm === 'base' && deps.budgetLeftMs() <= 0)
      return { launches, stopped: `${deps.budgetName ?? 'ab-budget'} spent before the ${name}` }
    const { target, cells } = arms[arm]
    if (before)
      await waitMemoryReleased({
        previous: target.id,
        before,
        floor: target.settings.memoryFloor,
        log: deps.log,
        signal: deps.signal,
        read,
      })
    before = await read().catch(() => undefined)
    deps.log.info(`${target.id}: A/B ${name} (launch ${i + 1}: at least ${2 * arms.launches}, at most ${order.length})`)
    const deadline = arm === 'base' ? budgetDeadline(name, deps) : undefined
    // Both launches of a pair (0-1, 2-3, …) measure with the same seed: the same prompts and arrivals.
    const planned = cells.map((c) => launchCell(c, arms.warmRounds?.get(c.id)))
    const result = await oneLaunch(arm, target, planned, deps, deps.seed + AB_SEED_OFFSET + Math.floor(i / 2), deadline)
    if (arm === 'base') deps.spend(result.engineMs)
    launches.push(result)
    if (result.error) return { launches, stopped: launchStopped(name, result.error, deadline) }
  }
  const ended = anotherPair(arms, launches, deps)
  return { launches, ...(typeof ended === 'string' && { ended }) }
}

/** When a launch must end, and the reason it then ends with. */
interface Deadline {
  ms: number
  reason: string
}

/**
 * A base launch ends when `ab-budget` runs out, whatever it is doing (its ready wait, a round in flight): an engine
 * that never gets ready would otherwise take its whole `ready-timeout` past the budget.
 */
function budgetDeadline(name: string, deps: AbLaunchDeps): Deadline {
  return { ms: deps.budgetLeftMs(), reason: `${deps.budgetName ?? 'ab-budget'} spent during the ${name}` }
}

/** Why the A/B ended with this launch: the budget running out says only that. */
function launchStopped(name: string, error: string, deadline: Deadline | undefined): string {
  return error === deadline?.reason ? error : `the ${name} failed: ${error}`
}

/** One launch: start, ready, each cell measured once with a discarded cold round, teardown; ended at `deadline`. */
async function oneLaunch(
  arm: AbArm,
  target: TargetPlan,
  cells: CellPlan[],
  deps: AbLaunchDeps,
  seed: number,
  deadline?: Deadline,
): Promise<AbLaunchResult> {
  const started = Date.now()
  const session = new TargetSession(target, cells, deps)
  if (deadline) session.endAfter(deadline.ms, deadline.reason)
  try {
    const running = await session.start()
    const info = await session.ready(running)
    const print = await engineFingerprint(target, {}, info)
    const measured = new Map<string, CellResult>()
    for (const cell of cells) {
      const result = await measureOnLaunch(cell, session, running, info, { ...deps, seed })
      if (session.fatal) throw new Error(session.fatal)
      if (result.status !== 'ok') throw new Error(`${cell.id}: ${result.error ?? 'nothing measured'}`)
      measured.set(cell.id, result)
    }
    await session.close()
    return { arm, cells: measured, engineMs: Date.now() - started, fingerprint: print }
  } catch (error) {
    const reason = session.fatal ?? errorMessage(error)
    await session.close()
    return { arm, error: reason, engineMs: Date.now() - started }
  }
}

/**
 * The cell measured once on a running launch, with more warm rounds when its round-to-round noise is what would
 * widen the A/B's interval (`abMoreRounds`, up to `max-rounds`).
 */
async function measureOnLaunch(
  cell: CellPlan,
  session: TargetSession,
  running: RunningTarget,
  info: TargetInfo,
  deps: AbLaunchDeps,
): Promise<CellResult> {
  const { settings } = cell.target
  // Each launch's own startup: with `gate.startup` the A/B pairs the arms' launches like any other figure.
  const extras = launchFigures(running)
  const measure = (extend?: MeasureCellOptions['extend']) =>
    measureCell({ ...session.measuring(running.baseUrl), cell, log: deps.log, seed: deps.seed, extend })
  const first = await measure()
  const result = measuredCell(cell, first.measurement, info, { ...extras, specDecode: first.specDecode })
  const more =
    result.status === 'ok' ? abMoreRounds(result, cell.target.gate, settings.noiseFloor, settings.maxRounds) : 0
  if (more === 0 || session.fatal) return result
  deps.log.info(
    `${cell.id}: round-to-round noise above the noise floor, measuring ${more} more warm round(s) on this launch`,
  )
  const extended = await measure({ after: first.measurement, rounds: more })
  return measuredCell(cell, extended.measurement, info, { ...extras, specDecode: first.specDecode })
}

/**
 * The cell as one launch measures it: at least one leading round discarded (a fresh launch's first round is a cold
 * one), then `warm` warm rounds where that is fewer than its own (compare/ab-rounds.ts).
 */
function launchCell(cell: CellPlan, warm: number | undefined): CellPlan {
  const own = cell.target.settings
  const cold = own.discard >= 1 ? own : { ...own, rounds: own.rounds + 1, discard: 1, maxRounds: own.maxRounds + 1 }
  const rounds = warm === undefined ? cold.rounds : Math.min(cold.rounds, cold.discard + warm)
  if (cold === own && rounds === own.rounds) return cell
  return { ...cell, target: { ...cell.target, settings: { ...cold, rounds } } }
}
