/**
 * `only` globs over cell ids and `shard: i/n`. Both act on whole plans: `only` drops cells (and
 * targets left without any), `shard` keeps a target's scenarios together so a model loads once.
 */
import type { Problems } from './issues.js'
import type { TargetPlan } from '../core/plan.js'
import { withoutSweepPoint } from '../core/sweep.js'

export function onlyPatterns(only: string | undefined): string[] {
  return (only ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0)
}

type Token = { kind: 'char'; char: string } | { kind: 'one' } | { kind: 'star' } | { kind: 'globstar'; dirs: boolean }

/**
 * A compiled `only` pattern: `*` stays within a path segment, `?` is one character, `**` crosses `/`; no `/`
 * means every scenario. `only` is free text from a `workflow_dispatch` form, so matching must not backtrack:
 * the pattern runs as a set of states over the id (a Thompson simulation), at most pattern × id steps.
 */
export function compileGlob(pattern: string): (id: string) => boolean {
  return globMatcher(pattern.includes('/') ? pattern : `${pattern}/*`)
}

/** The same glob over any `/`-separated path; `**` followed by `/` also matches no directory at all (`a/**` + `/b` matches `a/b`). */
export function globMatcher(full: string): (path: string) => boolean {
  const tokens: Token[] = []
  for (let i = 0; i < full.length; i++) {
    if (full[i] === '*' && full[i + 1] === '*') {
      // `**/` at the start of a segment may also match no directory: the glob steps over it and its slash.
      tokens.push({ kind: 'globstar', dirs: full[i + 2] === '/' && (i === 0 || full[i - 1] === '/') })
      i++
    } else if (full[i] === '*') tokens.push({ kind: 'star' })
    else if (full[i] === '?') tokens.push({ kind: 'one' })
    else tokens.push({ kind: 'char', char: full[i] })
  }
  const skippable = (t: Token) => t.kind === 'star' || t.kind === 'globstar'
  // Adds state i and every state reachable from it by letting a star match nothing; `fresh` when no star of
  // state i has matched anything yet (only then may `**/` skip its slash too).
  const enter = (states: Uint8Array, i: number, fresh = true) => {
    for (; i <= tokens.length; i++) {
      const mark = fresh ? 2 : 1
      if (states[i] >= mark) return
      states[i] = mark
      if (i === tokens.length || !skippable(tokens[i])) return
      const t = tokens[i]
      if (fresh && t.kind === 'globstar' && t.dirs) enter(states, i + 2)
      fresh = true
    }
  }
  return (id) => {
    let current = new Uint8Array(tokens.length + 1)
    enter(current, 0)
    for (const c of id) {
      const next = new Uint8Array(tokens.length + 1)
      for (let i = 0; i < tokens.length; i++) {
        if (!current[i]) continue
        const t = tokens[i]
        if (t.kind === 'globstar' || (t.kind === 'star' && c !== '/')) enter(next, i, false)
        else if ((t.kind === 'one' && c !== '/') || (t.kind === 'char' && t.char === c)) enter(next, i + 1)
      }
      current = next
    }
    return current[tokens.length] !== 0
  }
}

/**
 * A compiled `only` pattern over cell ids. A point of a concurrency sweep (`qwen-fp8/chat-1k@c4`) is also its
 * scenario's cell (`qwen-fp8/chat-1k`): a pattern that names the scenario selects every point of its sweep.
 */
export function cellMatcher(pattern: string): (id: string) => boolean {
  const match = compileGlob(pattern)
  return (id) => match(id) || (withoutSweepPoint(id) !== id && match(withoutSweepPoint(id)))
}

export function matchesOnly(id: string, only: string | undefined): boolean {
  const patterns = onlyPatterns(only)
  return patterns.length === 0 || patterns.some((p) => cellMatcher(p)(id))
}

const LISTED = 12

/** Keep the cells `only` selects; a pattern that selects nothing is a problem (likely a typo). */
export function applyOnly(targets: TargetPlan[], only: string | undefined, problems: Problems): TargetPlan[] {
  const patterns = onlyPatterns(only)
  if (patterns.length === 0) return targets
  const matchers = patterns.map(cellMatcher)
  const ids = targets.flatMap((t) => t.scenarios.map((s) => `${t.id}/${s.id}`))
  patterns.forEach((pattern, i) => {
    if (ids.some((id) => matchers[i](id))) return
    const shown = ids.slice(0, LISTED).join(', ') + (ids.length > LISTED ? `, … ${ids.length - LISTED} more` : '')
    problems.add(['only'], `"${pattern}" matches no cell (cells: ${shown || 'none'})`, false)
  })
  return targets
    .map((t) => ({ ...t, scenarios: t.scenarios.filter((s) => matchers.some((match) => match(`${t.id}/${s.id}`))) }))
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
