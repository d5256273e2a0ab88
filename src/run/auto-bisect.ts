/**
 * `bisect: auto` (docs/bisect.md): a default-branch run that alerts — a cell regressed against the level main was at,
 * or crept past a limit over several merges — bisects in the same job, for each target whose setting is `auto`, over
 * its alerting cells, from the reference point to this commit: the start of the creep's span (`since`, the newest run
 * at least as good as the reference level), else the previous default-branch run, the newest the history holds.
 * Of several alerting cells' reference points, the oldest in main's history, so the range holds every one's loss.
 */
import type { Plan } from '../core/plan.js'
import type { HistoryEntry, ResultsFile } from '../core/results.js'

/** One bisection `bisect: auto` asks for: a target, its alerting cells, and the good end. */
export interface AutoRange {
  target: string
  cells: string[]
  good: string
}

/** The bisections a default-branch run's alerts ask for; none when no target of the plan bisects on its own. */
export function autoRanges(plan: Plan, results: ResultsFile, history: readonly HistoryEntry[]): AutoRange[] {
  const previous = history.at(-1)?.sha
  const age = (sha: string) => {
    const at = history.findIndex((e) => e.sha === sha)
    return at < 0 ? history.length : at
  }
  return plan.targets.flatMap((target) => {
    if (target.external || target.settings.bisect.mode !== 'auto') return []
    const alerting = results.cells.filter(
      (c) =>
        c.target === target.id && c.status === 'ok' && (c.verdict.status === 'regression' || c.verdict.creep?.length),
    )
    const points = alerting.flatMap((c) => {
      const since = c.verdict.creep?.map((k) => k.since) ?? []
      return since.length ? since : previous ? [previous] : []
    })
    if (!points.length) return []
    const good = points.reduce((a, b) => (age(b) < age(a) ? b : a))
    return [{ target: target.id, cells: alerting.map((c) => c.id), good }]
  })
}

/** The plan narrowed to one range's target and cells: what its bisection measures at every commit. */
export function rangePlan(plan: Plan, range: AutoRange): Plan {
  return {
    ...plan,
    targets: plan.targets.filter((t) => t.id === range.target),
    cells: plan.cells.filter((c) => c.target.id === range.target && range.cells.includes(c.id)),
  }
}
