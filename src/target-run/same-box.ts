/**
 * Same-box A/B of one target (docs/same-box.md): after the target's cells are measured and judged against the
 * stored baseline, the cells the judge says want one (compare/ab-verdict.ts) are measured again, alternately as
 * the PR's base commit defines them and as the PR does (ab-launches.ts), and judged on the paired launches. The
 * run prepares the base arm once, before its first target, and hands it down as data (`SameBoxRun`); `ab-budget`
 * bounds the base arms' engine time over the whole run, and an `ab-setup` command runs once per worktree folder.
 */
import { formatDuration } from '../core/format.js'
import type { CellPlan, Plan, TargetPlan } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import { workloadChanges } from '../core/workload.js'
import { abSpreadWarnings, abWarmRounds, type CellJudge } from '../compare/index.js'
import { definition, matchesPaths } from '../config/index.js'
import { loosenedGate } from '../config/gate-changes.js'
import { runAbLaunches, type AbLaunchResult } from './ab-launches.js'
import { workloadOf } from './cell-result.js'
import type { SessionDeps } from './session.js'
import {
  AB_ARM_VARIABLE,
  AB_BASE_SHA_VARIABLE,
  logPathFor,
  runSetupCommand,
  type SetupOutcome,
} from '../server/index.js'

/** The PR's base commit checked out for the base arm: its plan, every target's launch running in the worktree. */
export interface BaseArm {
  sha: string
  /** The base commit's plan. */
  plan: Plan
  /** The repository's root in the PR's checkout. */
  repoRoot: string
  worktree: string
  /** Files that differ between the base commit and the checkout, repository paths; undefined when git could not say. */
  changed?: string[]
}

/** What the targets of one run share of its same-box A/B: the base arm (or why there is none), the budget spent, the setups run. */
export interface SameBoxRun {
  base: BaseArm | { unavailable: string }
  budget: { spentMs: number }
  setups: Map<string, Promise<SetupOutcome>>
}

/** A run's same-box state around its base arm, nothing spent yet. */
export function sameBoxRun(base: SameBoxRun['base']): SameBoxRun {
  return { base, budget: { spentMs: 0 }, setups: new Map() }
}

/** What one target's A/B needs of the run besides the base arm: the judge, the session's ports, the seed. */
export type SameBoxDeps = SessionDeps & { judge: CellJudge; seed: number }

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
  plans: readonly CellPlan[],
): { pairs: CellPair[]; changed: Map<string, string[]> } {
  const changed = new Map<string, string[]>()
  const pairs = wanted.flatMap((c) => {
    const scenario = baseTarget.scenarios.find((s) => s.id === c.scenario)
    const mine = plans.find((p) => p.id === c.id)
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

/**
 * The target's judged cells, A/B-tested where the judge wants it; `headMs` is how long the target's own run took
 * (the estimate of one launch against `ab-budget`). A target whose `ab` is off is returned as it is.
 */
export async function sameBoxTest(
  target: TargetPlan,
  plans: readonly CellPlan[],
  measured: CellResult[],
  headMs: number,
  box: SameBoxRun,
  deps: SameBoxDeps,
): Promise<CellResult[]> {
  const { ab } = target.settings
  if (ab.mode === 'off') return measured
  const { base, budget } = box
  const { judge, log } = deps
  // Read for every target that may be A/B-tested: the base's definition names a gate this PR loosened.
  const baseTarget = 'unavailable' in base ? undefined : base.plan.targets.find((t) => t.id === target.id)
  const cells = withLoosened(measured, baseTarget ? loosenedGate(target, baseTarget) : [])
  const wanted = cells.filter((c) => judge.abWanted(c))
  if (!wanted.length) return cells
  const skip = (reason: string, ids = new Set(wanted.map((c) => c.id)), from = cells) => {
    log.info(`${target.id}: same-box A/B not run: ${reason}`)
    return from.map((c) => (ids.has(c.id) ? judge.decide({ judged: c, abNotRun: reason }) : c))
  }
  if ('unavailable' in base) return skip(base.unavailable)
  if (!baseTarget) return skip(`the base commit ${base.sha.slice(0, 7)} does not define ${target.id}`)
  const identical = identicalAtBase(target, baseTarget, base)
  if (identical) return skip(identical)
  const { pairs, marked } = pairOrSkip(cells, wanted, baseTarget, plans, base.sha, skip)
  if (!pairs.length) return marked
  const pairIds = new Set(pairs.map((p) => p.pr.id))
  const estimate = ab.launches * headMs
  if (budget.spentMs + estimate > ab.budgetMs)
    return skip(
      `the base arm would take about ${formatDuration(estimate)} (${ab.launches} launches, as long as the PR's own), past ab-budget ${formatDuration(ab.budgetMs)} with ${formatDuration(budget.spentMs)} spent`,
      pairIds,
      marked,
    )
  const setup = await baseSetup(target, baseTarget, base, { setups: box.setups, budget, deps })
  if (!setup.ok) return skip(setup.reason, pairIds, marked)
  return abTest({ target, baseTarget, sha: base.sha, pairs, cells: marked }, deps, {
    leftMs: () => ab.budgetMs - budget.spentMs,
    spend: (ms) => (budget.spentMs += ms),
  })
}

/** The wanted cells paired, and the target's cells with those that have no pair marked (new, or another workload). */
function pairOrSkip(
  cells: CellResult[],
  wanted: readonly CellResult[],
  baseTarget: TargetPlan,
  plans: readonly CellPlan[],
  sha: string,
  skip: (reason: string, ids: Set<string>, from: CellResult[]) => CellResult[],
): { pairs: CellPair[]; marked: CellResult[] } {
  const short = sha.slice(0, 7)
  const { pairs, changed } = cellPairs(wanted, baseTarget, plans)
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
  deps: SameBoxDeps
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
      guard: s.deps.guard,
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
  deps: SameBoxDeps,
  budget: { leftMs(): number; spend(ms: number): void },
): Promise<CellResult[]> {
  const { target, baseTarget, sha, pairs } = t
  const { ab } = target.settings
  deps.log.info(
    `${target.id}: same-box A/B against the base ${sha.slice(0, 7)}, ABBA × ${ab.launches} to ${ab.maxLaunches}: ${pairs.length} cell(s)`,
  )
  const base = { target: baseTarget, cells: pairs.map((p) => p.base) }
  // Each PR cell as judged against the stored baseline (its verdict carries main's launch spread), and its plan.
  const judged = pairs.flatMap((p) => {
    const cell = t.cells.find((c) => c.id === p.pr.id)
    return cell ? [{ cell, plan: p.pr }] : []
  })
  // Rounds against launches by what each costs on this box, from the PR's own measurement (compare/ab-rounds.ts).
  const warmRounds = new Map(
    judged.map(({ cell, plan: { target: pr } }) => {
      const { settings, gate } = pr
      return [cell.id, abWarmRounds(cell, gate, settings.noiseFloor, settings.rounds - settings.discard)] as const
    }),
  )
  // A launch spread main measured that ab-max-launches cannot decide: said before the launches are spent.
  for (const { cell, plan } of judged)
    for (const line of abSpreadWarnings(cell, plan.target.gate, ab.maxLaunches)) deps.log.warn(line)
  const rounds = [...new Set(warmRounds.values())].join(' or ')
  if (rounds) deps.log.info(`${target.id}: each A/B launch measures ${rounds} warm round(s) a cell`)
  // Another pair of launches while the sequential test leaves a cell's metric undecided (compare/ab.ts).
  const undecided = (launches: readonly AbLaunchResult[]) =>
    judged.some(({ cell }) => deps.judge.abUndecided(cell, launches))
  const outcome = await runAbLaunches(
    {
      base,
      pr: { target, cells: pairs.map((p) => p.pr) },
      launches: ab.launches,
      maxLaunches: ab.maxLaunches,
      warmRounds,
      undecided,
    },
    { ...deps, budgetLeftMs: budget.leftMs, spend: budget.spend },
  )
  if (outcome.ended) deps.log.info(`${target.id}: ${outcome.ended}`)
  const evidence = { sha, minimum: ab.launches, ...outcome }
  const tested = new Set(pairs.map((p) => p.pr.id))
  return t.cells.map((cell) => (tested.has(cell.id) ? deps.judge.decide({ judged: cell, ab: evidence }) : cell))
}

/**
 * Why the target need not be A/B-tested, or undefined when it must be: both arms would run the same thing when
 * its expanded definition and every file its `paths` match are byte-identical at base and head. A target
 * without `paths` does not say what it depends on, so it is always tested.
 */
export function identicalAtBase(target: TargetPlan, base: TargetPlan, arm: BaseArm): string | undefined {
  // The base's launch resolved its paths in the worktree: the same files, seen from the other checkout.
  const scenarios = target.scenarios.map((s) => base.scenarios.find((b) => b.id === s.id))
  if (scenarios.some((s) => !s)) return undefined
  const baseDefinition = definition(base, scenarios as TargetPlan['scenarios'])
    .split(arm.worktree)
    .join(arm.repoRoot)
  if (definition(target) !== baseDefinition) return undefined
  if (!target.paths || !arm.changed) return undefined
  if (arm.changed.some((file) => matchesPaths(target.paths!, file))) return undefined
  return `${target.id} is identical at the base commit ${arm.sha.slice(0, 7)} (its definition and the files its paths match): both arms would run the same thing`
}
