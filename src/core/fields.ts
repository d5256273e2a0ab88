/**
 * Field schemas shared by the matrix file's blocks. Unit fields take the text users write
 * (`20m`, `4GiB`, `5%`) and parse to numbers; messages name what was expected and what came.
 */
import { z } from 'zod'
import type { MemoryFloor } from './plan.js'
import {
  DURATION_PATTERN,
  PERCENT_PATTERN,
  SIZE_OR_PERCENT_PATTERN,
  parseDuration,
  parsePercent,
  parseSize,
} from './units.js'

/** Target and scenario ids: they become file names, glob targets and baseline keys. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
/** Placeholder and matrix key names. */
export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/

export function show(value: unknown): string {
  if (value === undefined) return 'nothing'
  return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value))
}

/** Error text for a failed check: `required` when the key is missing, else the rule and the value. */
export function expected(rule: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : `${rule} (got ${show(issue.input)})`)
}

export function whole(min: number, max = Number.MAX_SAFE_INTEGER) {
  const rule =
    max === Number.MAX_SAFE_INTEGER ? `must be a whole number ≥ ${min}` : `must be a whole number from ${min} to ${max}`
  return z
    .int({ error: expected(rule) })
    .min(min, { error: expected(rule) })
    .max(max, { error: expected(rule) })
}

export function positive() {
  return z.number({ error: expected('must be a number > 0') }).positive({ error: expected('must be a number > 0') })
}

type Ctx = z.core.$RefinementCtx<unknown>

function fail(ctx: Ctx, input: unknown, message: string): never {
  ctx.addIssue({ code: 'custom', message, input })
  return z.NEVER
}

const DURATION_HINT = 'a duration like 500ms, 90s, 20m or 1h30m'

/** The longest duration a field takes: a day, well inside what a timer can hold (2³¹ − 1 ms). */
export const MAX_DURATION_MS = 24 * 3_600_000

function toMs(text: string, ctx: Ctx, allowZero = false): number {
  const ms = parseDuration(text)
  if (ms === undefined && parseDuration(text.trim().replace(/^-/, '')) !== undefined)
    return fail(ctx, text, `must be positive (got ${show(text)})`)
  if (ms === undefined) return fail(ctx, text, `${show(text)} is not ${DURATION_HINT}`)
  if (ms < 0 || (ms === 0 && !allowZero)) return fail(ctx, text, `must be positive (got ${show(text)})`)
  if (ms > MAX_DURATION_MS) return fail(ctx, text, `must be at most 24h (got ${show(text)})`)
  return ms
}

/**
 * The unit a bare number of a duration field most likely meant, which its error suggests: `ms` for per-request
 * latencies (an `slo` bound: `tpot: 80` → "80ms", as `vllm bench serve --goodput` takes them), `s` for timeouts,
 * budgets and simulated times.
 */
export type DurationUnit = 'ms' | 's'

/** A duration in ms. Bare numbers are refused: `20` could mean ms, s or minutes; the error suggests `unit` (default s). */
export function duration(options: { allowZero?: boolean; unit?: DurationUnit } = {}) {
  const unit = options.unit ?? 's'
  return z
    .string({
      error: (issue) =>
        typeof issue.input === 'number'
          ? `needs a unit, e.g. "${issue.input}${unit}"`
          : expected(`must be ${DURATION_HINT}`)(issue),
    })
    .meta({
      description: `A duration like 500ms, 90s, 20m or 1h30m`,
      pattern: DURATION_PATTERN,
      examples: unit === 'ms' ? ['80ms', '2s'] : ['90s', '20m'],
    })
    .transform((text, ctx) => toMs(text, ctx, options.allowZero))
}

/** `5%` or a fraction in (0, 1]; relative thresholds may exceed 100% when written as a percent. */
export function relative(options: { allowZero?: boolean; capPercent?: boolean } = {}) {
  const floor = options.allowZero ? '≥ 0' : '> 0'
  return z
    .union([z.string(), z.number()], { error: expected('must be a percent like "5%" or a fraction like 0.05') })
    .meta({ description: 'A percent ("5%") or a fraction (0.05)', pattern: PERCENT_PATTERN, examples: ['5%'] })
    .transform((value, ctx) => {
      const fraction = typeof value === 'number' ? value : parsePercent(value)
      if (fraction === undefined) return fail(ctx, value, `${show(value)} is not a percent like "5%"`)
      if (fraction < 0 || (fraction === 0 && !options.allowZero))
        return fail(ctx, value, `must be ${floor} (got ${show(value)})`)
      if (typeof value === 'number' && value > 1) {
        return fail(ctx, value, `a number is a fraction (0.05 = 5%); write "${value}%" for a percent (got ${value})`)
      }
      if (options.capPercent && fraction > 1) return fail(ctx, value, `must be at most 100% (got ${show(value)})`)
      return fraction
    })
}

/** `4GiB`, `512MiB`, `4GB` or a share of total memory like `3%`. */
export function memoryFloor() {
  return z
    .string({ error: expected('must be a size like "4GiB" or a percent like "3%"') })
    .meta({
      description: 'Available-memory floor: a size (4GiB, 512MiB, 4GB) or a share of total memory (3%)',
      pattern: SIZE_OR_PERCENT_PATTERN,
      examples: ['4GiB', '3%'],
    })
    .transform((text, ctx): MemoryFloor => {
      const percent = parsePercent(text)
      if (percent !== undefined) {
        if (percent <= 0 || percent >= 1) return fail(ctx, text, `must be between 0% and 100% (got ${show(text)})`)
        return { kind: 'percent', value: percent }
      }
      const bytes = parseSize(text)
      if (bytes === undefined)
        return fail(ctx, text, `${show(text)} is not a size like 4GiB, 512MiB, 4GB or a percent like 3%`)
      if (bytes <= 0) return fail(ctx, text, `must be positive (got ${show(text)})`)
      return { kind: 'bytes', value: bytes }
    })
}

/** `min-delta`: a duration or a number of ms for latency metrics, of seconds for `s` ones, a number in the unit otherwise. */
export function minDelta(unit: string) {
  if (unit === 's') {
    return z
      .union([z.string(), z.number()], { error: expected('must be a duration like "5s" or a number of seconds') })
      .meta({
        description: 'Smallest absolute worsening that can count as a regression: "5s" or a number of seconds',
        pattern: DURATION_PATTERN,
        examples: ['5s'],
      })
      .transform((value, ctx) => {
        if (typeof value === 'string') return toMs(value, ctx) / 1000
        return value > 0 ? value : fail(ctx, value, `must be > 0 (got ${value})`)
      })
  }
  if (unit !== 'ms') {
    return z
      .number({ error: expected(`must be a number of ${unit} > 0`) })
      .positive({ error: expected(`must be a number of ${unit} > 0`) })
      .meta({ description: `Smallest absolute worsening in ${unit} that can count as a regression` })
  }
  return z
    .union([z.string(), z.number()], { error: expected('must be a duration like "50ms" or a number of ms') })
    .meta({
      description: 'Smallest absolute worsening that can count as a regression: "50ms" or a number of ms',
      pattern: DURATION_PATTERN,
      examples: ['50ms'],
    })
    .transform((value, ctx) => {
      if (typeof value === 'string') return toMs(value, ctx)
      return value > 0 ? value : fail(ctx, value, `must be > 0 (got ${value})`)
    })
}

/**
 * Percentage points as a fraction (5 → 0.05): how far a share may fall below its baseline (`max-drop: 5`). A
 * plain number, as `max-accuracy-drop` takes it; `5%` is refused, since it could be read as a relative change.
 */
export function points() {
  const rule = 'must be a number of points from 0 to 100, e.g. 5 (a share going from 96% to 91% drops 5 points)'
  return z
    .number({ error: expected(rule) })
    .positive({ error: expected(rule) })
    .max(100, { error: expected(rule) })
    .transform((p) => p / 100)
}

/** Text fields that YAML may read as numbers (`quant: 8`). */
export function text() {
  return z
    .union([z.string().min(1, { error: 'must not be empty' }), z.number()], { error: expected('must be text') })
    .transform(String)
}

export const scalar = z.union([z.string(), z.number(), z.boolean()], {
  error: expected('must be text, a number or true/false'),
})
