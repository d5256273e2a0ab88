/**
 * Scenarios as cells: a scenario's plan, one per point of a concurrency sweep, and the scenarios a target's
 * `scenarios:` list selects.
 */
import type { Path, Problems } from './issues.js'
import { isGenerated, type ScenarioPlan } from '../core/plan.js'
import type { ScenarioInput, TargetInput } from './schema.js'
import { sweepPoint, sweepPointId } from '../core/sweep.js'

/** A scenario with one concurrency: as written, or one point of a sweep. */
type PointInput = Omit<ScenarioInput, 'concurrency'> & { concurrency?: number }

export function scenarioPlan(id: string, s: PointInput): ScenarioPlan {
  // Open loop: `requests` may all be in flight at once, so that is the concurrency ceiling.
  const concurrency = s.concurrency ?? (s.rate !== undefined ? (s.requests ?? 1) : 1)
  const plan: ScenarioPlan = {
    id,
    inputTokens: s['input-tokens'],
    outputTokens: s['output-tokens'],
    concurrency,
    requests: s.requests ?? concurrency,
  }
  if (s.rate !== undefined) plan.rate = s.rate
  if (s['prefix-tokens'] !== undefined) plan.prefixTokens = s['prefix-tokens']
  if (s.slo !== undefined) plan.slo = { ...s.slo }
  if (isGenerated(s.prompts)) plan.prompts = s.prompts
  if (s.turns !== undefined) plan.turns = s.turns
  if (s['turn-tokens'] !== undefined) plan.turnTokens = s['turn-tokens']
  if (s.thinking !== undefined) plan.thinking = s.thinking === 'on'
  return plan
}

/**
 * A scenario's cells: one, or for a `concurrency` list one per value, in ascending order, each an ordinary
 * closed-loop scenario with the id `<scenario>@c<N>` (docs/matrix-file.md, "Concurrency sweeps").
 */
export function scenarioPlans(id: string, s: ScenarioInput): ScenarioPlan[] {
  if (!Array.isArray(s.concurrency)) return [scenarioPlan(id, { ...s, concurrency: s.concurrency })]
  return [...s.concurrency]
    .sort((a, b) => a - b)
    .map((c) => ({ ...scenarioPlan(sweepPointId(id, c), { ...s, concurrency: c }), sweep: id }))
}

/**
 * The scenarios a target runs, in its list's order: a scenario's name selects every point of its sweep, a point's
 * id (`chat-1k@c4`) that point alone.
 */
export function scenarioRefs(
  target: TargetInput,
  valid: ReadonlyMap<string, ScenarioPlan[]>,
  all: string[],
  path: Path,
  problems: Problems,
): ScenarioPlan[] {
  if (target.scenarios === undefined) return [...valid.values()].flat()
  const seen = new Set<string>()
  const chosen = new Map<string, ScenarioPlan>()
  target.scenarios.forEach((ref, i) => {
    const at = [...path, 'scenarios', i]
    if (seen.has(ref)) return problems.add(at, `scenario "${ref}" is listed twice`)
    seen.add(ref)
    const point = sweepPoint(ref)
    const base = point && !all.includes(ref) ? point.base : ref
    if (!all.includes(base)) return problems.add(at, `unknown scenario "${ref}" (defined: ${all.join(', ') || 'none'})`)
    const plans = valid.get(base)
    if (!plans) return // invalid: the schema has reported it
    const picked = base === ref ? plans : plans.filter((s) => s.id === ref)
    if (!picked.length) return problems.add(at, `unknown scenario "${ref}" (${sweepText(base, plans)})`)
    for (const s of picked) {
      if (chosen.has(s.id)) problems.add(at, `selects ${s.id} again (an earlier entry already runs it)`)
      chosen.set(s.id, s)
    }
  })
  return [...chosen.values()]
}

function sweepText(base: string, plans: readonly ScenarioPlan[]): string {
  return plans[0]?.sweep === undefined
    ? `${base} is not a concurrency sweep`
    : `the sweep ${base} has ${plans.map((s) => s.id).join(', ')}`
}
