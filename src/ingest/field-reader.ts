/** Reading the fields of one tool record, with messages that name the file, the line and what was expected. */
import { ConfigError } from '../core/errors.js'
import type { Document } from './types.js'

/** A value as a message shows it: short, never a whole object. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (Array.isArray(value)) return `a list of ${value.length}`
  if (typeof value === 'object' && value !== null) return 'an object'
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}

/** How the reader marks Python's bare `NaN` (read.ts); other fields treat it as absent. */
export const NAN = 'NaN'

const SMALLEST_FIGURE = 1e-9

export class ToolRecord {
  readonly where: string
  private readonly fields: Record<string, unknown>

  /** `noun` says what the record should be (`a vLLM bench result`); `at` names a part of the document (`test 2`). */
  constructor(
    readonly doc: Document,
    readonly noun: string,
    value: unknown = doc.value,
    readonly at?: string,
  ) {
    this.where = `${doc.file}:${doc.line}${at ? ` (${at})` : ''}`
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      this.fail(`expected a JSON object, got ${describeValue(value)}`)
    this.fields = value as Record<string, unknown>
  }

  fail(problem: string): never {
    throw new ConfigError([`${this.where}: not ${this.noun}: ${problem}`])
  }

  has(key: string): boolean {
    const value = this.fields[key]
    return value !== undefined && value !== null && value !== NAN
  }

  keys(): string[] {
    return Object.keys(this.fields)
  }

  raw(key: string): unknown {
    return this.fields[key]
  }

  /** A number the record must have. */
  num(key: string): number {
    if (!this.has(key)) this.fail(`missing \`${key}\``)
    return this.checked(key)
  }

  /** A number the record may lack (absent or null). */
  opt(key: string): number | undefined {
    return this.has(key) ? this.checked(key) : undefined
  }

  /** A count the record may lack, such as a requested length: a whole number above 0 when present. */
  count(key: string): number | undefined {
    const value = this.opt(key)
    if (value !== undefined && (!Number.isInteger(value) || value < 1))
      this.fail(`\`${key}\`: expected a whole number above 0, got ${value}`)
    return value
  }

  str(key: string): string | undefined {
    const value = this.fields[key]
    return typeof value === 'string' ? value : undefined
  }

  /** A nested object, as a record of its own; undefined when absent. */
  sub(key: string): ToolRecord | undefined {
    return this.has(key)
      ? new ToolRecord(this.doc, this.noun, this.fields[key], this.at ? `${this.at}.${key}` : key)
      : undefined
  }

  /** A list of numbers the record may lack. */
  numbers(key: string): number[] | undefined {
    const value = this.fields[key]
    return Array.isArray(value) && value.every((v) => typeof v === 'number') ? value : undefined
  }

  /**
   * A figure the gate compares: present, or absent (null), but never NaN (Python's `json.dumps` writes it for a
   * statistic over no values), and above 0 — no request takes no time.
   */
  measured(key: string): number | undefined {
    if (this.fields[key] === NAN) this.fail(`\`${key}\`: NaN is not a measurement`)
    const value = this.opt(key)
    if (value === 0) this.fail(`\`${key}\`: 0 is not a time a request can take`)
    return value
  }

  /**
   * Every figure a tool writes is a time, a count, a rate or a length: never below 0, and never a positive
   * number so small (under 1e-9) that it is not a measurement but an artefact, which as a TPOT would read as a
   * decode speed of 1e300 tokens per second.
   */
  private checked(key: string): number {
    const value = this.fields[key]
    if (typeof value !== 'number' || !Number.isFinite(value))
      this.fail(`\`${key}\`: expected a number, got ${describeValue(value)}`)
    if (value < 0) this.fail(`\`${key}\`: ${value} is below 0`)
    if (value > 0 && value < SMALLEST_FIGURE) this.fail(`\`${key}\`: ${value} is too small to be a measurement`)
    return value
  }
}
