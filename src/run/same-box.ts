/**
 * Same-box A/B for one run (docs/same-box.md): after a target's cells are measured and judged against the stored
 * baseline, the cells that want it (target/ab-target.ts) are measured again, alternately as the PR's base commit
 * defines them and as the PR does, and judged on the paired launches. The base arm is prepared once, for the
 * first target that wants it; its worktree is removed when the run's measuring ends (and by the post step or the
 * watchdog when the process died). `ab-budget` bounds the base arms' engine time over the whole run.
 */
import { formatDuration } from '../core/format.js'
import type { CellPlan, Plan, TargetPlan } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import { workloadChanges } from '../core/workload.js'
import { runAbLaunches, type AbLaunchResult } from '../target/ab-launches.js'
import { workloadOf } from '../target/cell-result.js'
import { abNotRun, abVerdictOf, abWanted, applyAb, wantsLaunches } from '../target/ab-target.js'
import type { TargetRunDeps } from '../target/run-target.js'
import { loosenedGate } from '../config/gate-changes.js'
import {
  AB_ARM_VARIABLE,
  AB_BASE_SHA_VARIABLE,
  logPathFor,
  runSetupCommand,
  type SetupOutcome,
} from '../server/index.js'
import { identicalAtBase, prepareBaseArm, type BaseArm, type BaseArmOptions } from './base-arm.js'

export interface SameBox {
  /** The target's judged cells, A/B-tested where wanted; `headMs` is how long the target's own run took. */
  test(target: TargetPlan, cells: CellResult[], headMs: number): Promise<CellResult[]>
  /** Removes the base commit's worktree. */
  close(): Promise<void>
}

export type SameBoxOptions = Omit<BaseArmOptions, 'plan'> & { deps: TargetRunDeps }

interface CellPair {
  base: CellPlan
  pr: CellPlan
}

/**
 * Each wanted cell as the base commit defines it and as the PR does. A cell the base lacks has no pair; nor has one
 * whose workload the PR changed (input or output length, concurrency, requests, rate, API, body, prompts, prefix,
 * SLO): the arms would measure different work, and a lighter workload would read as an improvement, a heavier
 * one as a regression. Such a cell is listed with what changed.
 */
function cellPairs(
  wanted: readonly CellResult[],
  baseTarget: TargetPlan,
  plan: Plan,
): { pairs: CellPair[]; changed: Map<string, string[]> } {
  const changed = new Map<string, string[]>()
  const pairs = wanted.flatMap((c) => {
    const scenario = baseTarget.scenarios.find((s) => s.id === c.scenario)
    const mine = plan.cells.find((p) => p.id === c.id)
    if (!scenario || !mine) return []
    const changes = workloadChanges(
      workloadOf(scenario, baseTarget.settings),
      workloadOf(mine.scenario, mine.target.settings),
    )
    if (changes.length) {
      changed.set(c.id, changes)
      return []
    }
    return [{ base: { id: c.id, target: baseTarget, scenario }, pr: mine }]
  })
  return { pairs, changed }
}

/** The cells with the gate loosenings recorded on each (those of a target the PR holds to a looser gate). */
function withLoosened(cells: CellResult[], loosened: readonly string[]): CellResult[] {
  return loosened.length ? cells.map((c) => ({ ...c, loosened: [...loosened] })) : cells
}

export function sameBox(plan: Plan, o: SameBoxOptions): SameBox {
  let arm: Promise<BaseArm | { unavailable: string }> | undefined
  const budget = { spentMs: 0 }
  const setups = new Map<string, Promise<SetupOutcome>>()
  const log = o.deps.log
  return {
    async test(target, measured, headMs) {
      const { ab } = target.settings
      if (ab.mode === 'off') return measured
      // Read for every target that may be A/B-tested: the base's definition names a gate this PR loosened.
      arm ??= prepareBaseArm({ ...o, plan })
      const base = await arm
      const baseTarget = 'unavailable' in base ? undefined : base.plan.targets.find((t) => t.id === target.id)
      const cells = withLoosened(measured, baseTarget ? loosenedGate(target, baseTarget) : [])
      const wanted = cells.filter((c) => abWanted(c, ab.mode))
      if (!wanted.length) return cells
      const skip = (reason: string, ids = new Set(wanted.map((c) => c.id)), from = cells) => {
        log.info(`${target.id}: same-box A/B not run: ${reason}`)
        return from.map((c) => (ids.has(c.id) ? abNotRun(c, reason) : c))
      }
      if ('unavailable' in base) return skip(base.unavailable)
      if (!baseTarget) return skip(`the base commit ${base.sha.slice(0, 7)} does not define ${target.id}`)
      const identical = identicalAtBase(target, baseTarget, base)
      if (identical) return skip(identical)
      const { pairs, marked } = pairOrSkip(cells, wanted, baseTarget, plan, base.sha, skip)
      if (!pairs.length) return marked
      const pairIds = new Set(pairs.map((p) => p.pr.id))
      const estimate = ab.launches * headMs
      if (budget.spentMs + estimate > ab.budgetMs)
        return skip(
          `the base arm would take about ${formatDuration(estimate)} (${ab.launches} launches, as long as the PR's own), past ab-budget ${formatDuration(ab.budgetMs)} with ${formatDuration(budget.spentMs)} spent`,
          pairIds,
          marked,
        )
      const setup = await baseSetup(target, baseTarget, base, { setups, budget, deps: o.deps, guard: o.guard })
      if (!setup.ok) return skip(setup.reason, pairIds, marked)
      return abTest({ target, baseTarget, sha: base.sha, pairs, cells: marked }, o.deps, {
        leftMs: () => ab.budgetMs - budget.spentMs,
        spend: (ms) => (budget.spentMs += ms),
      })
    },
    async close() {
      const base = await arm
      if (base && !('unavailable' in base)) await base.checkout.remove()
    },
  }
}

/** The wanted cells paired, and the target's cells with those that have no pair marked (new, or another workload). */
function pairOrSkip(
  cells: CellResult[],
  wanted: readonly CellResult[],
  baseTarget: TargetPlan,
  plan: Plan,
  sha: string,
  skip: (reason: string, ids: Set<string>, from: CellResult[]) => CellResult[],
): { pairs: CellPair[]; marked: CellResult[] } {
  const short = sha.slice(0, 7)
  const { pairs, changed } = cellPairs(wanted, baseTarget, plan)
  const paired = new Set(pairs.map((p) => p.pr.id))
  const lacking = new Set(wanted.filter((c) => !changed.has(c.id) && !paired.has(c.id)).map((c) => c.id))
  let marked = lacking.size
    ? skip(`the base commit ${short} does not define the cell: it is new`, lacking, cells)
    : cells
  for (const [id, changes] of changed)
    marked = skip(
      `the PR changed the cell's workload since the base commit ${short} (${changes.join(', ')}): the arms would measure different work`,
      new Set([id]),
      marked,
    )
  return { pairs, marked }
}

interface SetupState {
  setups: Map<string, Promise<SetupOutcome>>
  budget: { spentMs: number }
  deps: TargetRunDeps
  guard?: SameBoxOptions['guard']
}

/**
 * The target's `ab-setup` run in the base's worktree, once per command and worktree folder in a run, before the
 * first base launch that needs it; its time counts against `ab-budget` and it may take no more than is left.
 */
function baseSetup(target: TargetPlan, baseTarget: TargetPlan, base: BaseArm, s: SetupState): Promise<SetupOutcome> {
  const command = target.settings.ab.setup
  if (!command) return Promise.resolve({ ok: true, ms: 0 })
  const cwd = baseTarget.workdir ?? base.worktree
  const key = `${cwd}\0${command}`
  let setup = s.setups.get(key)
  if (!setup) {
    const name = `ab-setup of ${target.id} at the base ${base.sha.slice(0, 7)}`
    s.deps.log.info(`${target.id}: ${name}: ${command}`)
    setup = runSetupCommand({
      name,
      command,
      cwd,
      env: { ...target.env, [AB_ARM_VARIABLE]: 'base', [AB_BASE_SHA_VARIABLE]: base.sha },
      passEnv: target.settings.passEnv,
      logPath: logPathFor(s.deps.logDir, `${target.id}.ab-setup`),
      timeoutMs: Math.max(1, target.settings.ab.budgetMs - s.budget.spentMs),
      guard: s.guard,
      signal: s.deps.signal,
    }).then((outcome) => {
      s.budget.spentMs += outcome.ms
      return outcome
    })
    s.setups.set(key, setup)
  }
  return setup
}

interface AbTest {
  target: TargetPlan
  baseTarget: TargetPlan
  sha: string
  pairs: CellPair[]
  /** The target's cells, those the A/B will not test already marked. */
  cells: CellResult[]
}

/** The launches of the A/B and the cells it decided. */
async function abTest(
  t: AbTest,
  deps: TargetRunDeps,
  budget: { leftMs(): number; spend(ms: number): void },
): Promise<CellResult[]> {
  const { target, baseTarget, sha, pairs } = t
  const { ab } = target.settings
  deps.log.info(
    `${target.id}: same-box A/B against the base ${sha.slice(0, 7)}, ABBA × ${ab.launches}: ${pairs.length} cell(s)`,
  )
  const base = { target: baseTarget, cells: pairs.map((p) => p.base) }
  // Another ABBA block while a cell's A/B verdict asks for launches (an interval that straddles the limit).
  const undecided = (launches: readonly AbLaunchResult[]) =>
    pairs.some((p) =>
      wantsLaunches(abVerdictOf(p.pr.id, { launches: [...launches] }, target.gate, target.settings.noiseFloor)),
    )
  const outcome = await runAbLaunches(
    { base, pr: { target, cells: pairs.map((p) => p.pr) }, launches: ab.launches, undecided },
    { ...deps, budgetLeftMs: budget.leftMs, spend: budget.spend },
  )
  if (outcome.ended) deps.log.info(`${target.id}: ${outcome.ended}`)
  return applyAb(t.cells, { base, gate: target.gate, sha, launches: ab.launches, outcome }, target.settings.noiseFloor)
}
