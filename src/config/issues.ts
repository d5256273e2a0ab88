/**
 * Problems as users read them: `path.to.field: what is wrong`, one per line, optionally with
 * the line of the file it came from. zod issues are reworded here so every message names the field.
 */
import type { z } from 'zod'

export type PathSegment = string | number
export type Path = readonly PathSegment[]
export type Locate = (path: Path) => { line: number; col: number } | undefined

export interface Problem {
  path: Path
  message: string
  /** Problems about inputs rather than the file (`only`, `shard`) have no line. */
  inFile?: boolean
  /** Already worded as `path: what` (an adapter's own ConfigError); `path` only locates it. */
  text?: string
}

export function formatPath(path: Path): string {
  if (path.length === 0) return '(file)'
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('')
}

/** Collects problems in order and drops exact repeats (one per matrix expansion would be noise). */
export class Problems {
  private readonly items: Problem[] = []

  add(path: Path, message: string, inFile = true): void {
    this.items.push({ path, message, inFile })
  }

  /** A problem someone else worded in full; `path` is where in the file it points. */
  addText(path: Path, text: string): void {
    this.items.push({ path, message: '', text })
  }

  addAll(problems: Problem[]): void {
    this.items.push(...problems)
  }

  get size(): number {
    return this.items.length
  }

  /** Formatted, in file order when lines are known (problems without a line keep their order, last). */
  lines(locate?: Locate): string[] {
    const located = this.items.map((p) => ({ p, line: p.inFile !== false ? locate?.(p.path)?.line : undefined }))
    located.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity))
    const text = located.map(
      ({ p, line }) => `${p.text ?? `${formatPath(p.path)}: ${p.message}`}${line ? ` (line ${line})` : ''}`,
    )
    return [...new Set(text)]
  }
}

type Issue = z.core.$ZodIssue
type AnySchema = z.core.$ZodType

/** Reword zod issues; `schema` is walked to suggest the key an unknown one was meant to be. */
export function zodProblems(issues: readonly Issue[], schema: AnySchema, base: Path = []): Problem[] {
  return issues.flatMap((issue) => issueProblems(issue, schema, [...base, ...(issue.path as PathSegment[])]))
}

function issueProblems(issue: Issue, schema: AnySchema, path: Path): Problem[] {
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ path: [...path, key], message: unknownKey(key, keysAt(schema, path)) }))
    case 'invalid_union': {
      // A union of a mapping and a scalar: report the branch that got past the type check.
      const informative = issue.errors.filter(
        (branch) => !branch.every((i) => i.path.length === 0 && isTypeMismatch(i)),
      )
      if (informative.length === 1) return zodProblems(informative[0], schema, path)
      return [{ path, message: issue.message }]
    }
    case 'invalid_key':
      return [{ path, message: issue.issues[0]?.message ?? issue.message }]
    default:
      return [{ path, message: issue.message }]
  }
}

function isTypeMismatch(issue: Issue): boolean {
  return issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union'
}

/**
 * The name of `known` a mistyped `name` most likely meant: the same but for case and `_` for `-`, else one at most two
 * edits away; undefined when none is that close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replaceAll('_', '-')
  return known.find((k) => norm(k) === norm(name)) ?? known.find((k) => distance(norm(k), norm(name)) <= 2)
}

function unknownKey(key: string, known: string[]): string {
  const close = closestName(key, known)
  if (close) return `unknown key (did you mean ${close}?)`
  return known.length > 0 && known.length <= 12 ? `unknown key (valid: ${known.join(', ')})` : 'unknown key'
}

/** Object keys the schema accepts at `path`, looking through optional/default/pipe/union wrappers. */
function keysAt(schema: AnySchema, path: Path): string[] {
  let node: AnySchema | undefined = unwrap(schema)
  for (const segment of path) {
    const def = node?._zod.def as unknown as Record<string, unknown> | undefined
    if (!def) return []
    if (def.type === 'object') node = (def.shape as Record<string, AnySchema>)[String(segment)]
    else if (def.type === 'record') node = def.valueType as AnySchema
    else if (def.type === 'array') node = def.element as AnySchema
    else return []
    node = node && unwrap(node)
  }
  const def = node?._zod.def as unknown as { type: string; shape?: Record<string, unknown> } | undefined
  return def?.type === 'object' && def.shape ? Object.keys(def.shape).filter((k) => k !== '$schema') : []
}

function unwrap(schema: AnySchema): AnySchema | undefined {
  let node: AnySchema | undefined = schema
  for (let depth = 0; node && depth < 16; depth++) {
    const def = node._zod.def as unknown as Record<string, unknown>
    if (['optional', 'nullable', 'default', 'prefault', 'readonly'].includes(def.type as string))
      node = def.innerType as AnySchema
    else if (def.type === 'pipe') node = def.in as AnySchema
    else if (def.type === 'union')
      node = (def.options as AnySchema[]).find((o) => (o._zod.def as { type: string }).type === 'object')
    else return node
  }
  return node
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]
}
