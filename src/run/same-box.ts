/**
 * Same-box A/B for one run (SPEC §14): after a target's cells are measured and judged against the stored
 * baseline, the cells that want it (target/ab-target.ts) are measured again, alternately as the PR's base commit
 * defines them and as the PR does, and judged on the paired launches. The base arm is prepared once, for the
 * first target that wants it; its worktree is removed when the run's measuring ends (and by the post step or the
 * watchdog when the process died). `ab-budget` bounds the base arms' engine time over the whole run.
 */
import { formatDuration } from '../core/format.js'
import type { CellPlan, Plan, TargetPlan } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import { runAbLaunches } from '../target/ab-launches.js'
import { abNotRun, abWanted, applyAb } from '../target/ab-target.js'
import type { TargetRunDeps } from '../target/run-target.js'
import { identicalAtBase, prepareBaseArm, type BaseArm, type BaseArmOptions } from './base-arm.js'

export interface SameBox {
  /** The target's judged cells, A/B-tested where wanted; `headMs` is how long the target's own run took. */
  test(target: TargetPlan, cells: CellResult[], headMs: number): Promise<CellResult[]>
  /** Removes the base commit's worktree. */
  close(): Promise<void>
}

export type SameBoxOptions = Omit<BaseArmOptions, 'plan'> & { deps: TargetRunDeps }

/** Each wanted cell as the base commit defines it and as the PR does; a cell the base lacks has no pair. */
function cellPairs(
  wanted: readonly CellResult[],
  baseTarget: TargetPlan,
  plan: Plan,
): { base: CellPlan; pr: CellPlan }[] {
  return wanted.flatMap((c) => {
    const scenario = baseTarget.scenarios.find((s) => s.id === c.scenario)
    const mine = plan.cells.find((p) => p.id === c.id)
    return scenario && mine ? [{ base: { id: c.id, target: baseTarget, scenario }, pr: mine }] : []
  })
}

export function sameBox(plan: Plan, o: SameBoxOptions): SameBox {
  let arm: Promise<BaseArm | { unavailable: string }> | undefined
  let spentMs = 0
  const log = o.deps.log
  return {
    async test(target, cells, headMs) {
      const { ab } = target.settings
      const wanted = cells.filter((c) => abWanted(c, ab.mode))
      if (!wanted.length) return cells
      arm ??= prepareBaseArm({ ...o, plan })
      const base = await arm
      const skip = (reason: string, ids = new Set(wanted.map((c) => c.id)), from = cells) => {
        log.info(`${target.id}: same-box A/B not run: ${reason}`)
        return from.map((c) => (ids.has(c.id) ? abNotRun(c, reason) : c))
      }
      if ('unavailable' in base) return skip(base.unavailable)
      const baseTarget = base.plan.targets.find((t) => t.id === target.id)
      if (!baseTarget) return skip(`the base commit ${base.sha.slice(0, 7)} does not define ${target.id}`)
      const identical = identicalAtBase(target, baseTarget, base)
      if (identical) return skip(identical)
      const pairs = cellPairs(wanted, baseTarget, plan)
      const lacking = new Set(wanted.filter((c) => !pairs.some((p) => p.pr.id === c.id)).map((c) => c.id))
      const marked = lacking.size
        ? skip(`the base commit ${base.sha.slice(0, 7)} does not define the cell: it is new`, lacking)
        : cells
      if (!pairs.length) return marked
      const estimate = ab.launches * headMs
      if (spentMs + estimate > ab.budgetMs)
        return skip(
          `the base arm would take about ${formatDuration(estimate)} (${ab.launches} launches, as long as the PR's own), past ab-budget ${formatDuration(ab.budgetMs)} with ${formatDuration(spentMs)} spent`,
          new Set(pairs.map((p) => p.pr.id)),
          marked,
        )
      return abTest({ target, baseTarget, sha: base.sha, pairs, cells: marked }, o.deps, {
        leftMs: () => ab.budgetMs - spentMs,
        spend: (ms) => (spentMs += ms),
      })
    },
    async close() {
      const base = await arm
      if (base && !('unavailable' in base)) await base.checkout.remove()
    },
  }
}

interface AbTest {
  target: TargetPlan
  baseTarget: TargetPlan
  sha: string
  pairs: { base: CellPlan; pr: CellPlan }[]
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
  const outcome = await runAbLaunches(
    { base, pr: { target, cells: pairs.map((p) => p.pr) }, launches: ab.launches },
    { ...deps, budgetLeftMs: budget.leftMs, spend: budget.spend },
  )
  return applyAb(t.cells, { base, gate: target.gate, sha, launches: ab.launches, outcome }, target.settings.noiseFloor)
}
