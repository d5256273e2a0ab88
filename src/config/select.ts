/**
 * `only` globs over cell ids and `shard: i/n`. Both act on whole plans: `only` drops cells (and
 * targets left without any), `shard` keeps a target's scenarios together so a model loads once.
 */
import type { Problems } from './issues.js'
import type { TargetPlan } from '../core/plan.js'

export function onlyPatterns(only: string | undefined): string[] {
  return (only ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0)
}

/** `*` stays within a path segment, `?` is one character, `**` crosses `/`; no `/` means every scenario. */
export function globToRegExp(pattern: string): RegExp {
  const full = pattern.includes('/') ? pattern : `${pattern}/*`
  let source = ''
  for (let i = 0; i < full.length; i++) {
    const c = full[i]
    if (c === '*' && full[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

export function matchesOnly(id: string, only: string | undefined): boolean {
  const patterns = onlyPatterns(only)
  return patterns.length === 0 || patterns.some((p) => globToRegExp(p).test(id))
}

const LISTED = 12

/** Keep the cells `only` selects; a pattern that selects nothing is a problem (likely a typo). */
export function applyOnly(targets: TargetPlan[], only: string | undefined, problems: Problems): TargetPlan[] {
  const patterns = onlyPatterns(only)
  if (patterns.length === 0) return targets
  const regexps = patterns.map(globToRegExp)
  const ids = targets.flatMap((t) => t.scenarios.map((s) => `${t.id}/${s.id}`))
  patterns.forEach((pattern, i) => {
    if (ids.some((id) => regexps[i].test(id))) return
    const shown = ids.slice(0, LISTED).join(', ') + (ids.length > LISTED ? `, … ${ids.length - LISTED} more` : '')
    problems.add(['only'], `"${pattern}" matches no cell (cells: ${shown || 'none'})`, false)
  })
  return targets
    .map((t) => ({ ...t, scenarios: t.scenarios.filter((s) => regexps.some((r) => r.test(`${t.id}/${s.id}`))) }))
    .filter((t) => t.scenarios.length > 0)
}

export interface Shard {
  index: number
  count: number
}

/** More shards than a workflow matrix can hold is a typo. */
const MAX_SHARDS = 256

export function parseShard(text: string | undefined, problems: Problems): Shard | undefined {
  const trimmed = text?.trim() ?? ''
  if (trimmed === '') return undefined
  const match = /^(\d+)\s*\/\s*(\d+)$/.exec(trimmed)
  const index = match ? Number(match[1]) : NaN
  const count = match ? Number(match[2]) : NaN
  if (!match || count < 1 || index < 1 || index > count || count > MAX_SHARDS) {
    problems.add(['shard'], `"${trimmed}" is not i/n with 1 ≤ i ≤ n ≤ ${MAX_SHARDS} (e.g. 1/2)`, false)
    return undefined
  }
  return { index, count }
}

/** Greedy, in file order: each target goes to the shard with the fewest cells so far (ties: lowest). */
export function shardOf(targets: TargetPlan[], count: number): number[] {
  const load = new Array<number>(count).fill(0)
  return targets.map((t) => {
    const shard = load.reduce((best, cells, i) => (cells < load[best] ? i : best), 0)
    load[shard] += t.scenarios.length
    return shard + 1
  })
}

export function applyShard(targets: TargetPlan[], shard: Shard | undefined): TargetPlan[] {
  if (!shard) return targets
  const assigned = shardOf(targets, shard.count)
  return targets.filter((_, i) => assigned[i] === shard.index)
}
