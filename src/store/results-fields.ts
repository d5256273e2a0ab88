/**
 * The zod fields the readers of results and history files are built from: each error message says what was
 * expected and what came (`expected a number, got "12"`), never a whole object.
 */
import { z } from 'zod'

/** A value as a message shows it: short, and never a whole object. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return `a list of ${value.length}`
  if (typeof value === 'object' && value !== null) return 'an object'
  if (typeof value !== 'string') return String(value)
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
}

export const want = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `missing (expected ${what})` : `expected ${what}, got ${describeValue(issue.input)}`

export const num = z.number({ error: want('a number') })
export const numOrNull = z.number({ error: want('a number or null') }).nullable()
export const str = z.string({ error: want('a string') })
export const strOrNull = z.string({ error: want('a string or null') }).nullable()
export const bool = z.boolean({ error: want('true or false') })
export const oneOf = <const T extends readonly string[]>(values: T) =>
  z.enum(values, { error: want(`one of ${values.map((v) => JSON.stringify(v)).join(', ')}`) })
export const list = <T extends z.ZodType>(item: T) => z.array(item, { error: want('a list') })
export const obj = <S extends z.core.$ZodLooseShape>(shape: S) => z.looseObject(shape, { error: want('an object') })
export const dict = <T extends z.ZodType>(value: T) => z.record(z.string(), value, { error: want('an object') })

/** Errors of an object whose keys come from a fixed list: a key outside it is named (`not a gated metric (…)`). */
export const keyedBy = (keys: readonly string[], noun: string) => ({
  error: (issue: { code: string; input?: unknown }) =>
    issue.code === 'unrecognized_keys' ? `not a ${noun} (one of ${keys.join(', ')})` : want('an object')(issue),
})
