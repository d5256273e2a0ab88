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
    return this.fields[key] !== undefined && this.fields[key] !== null
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

  private checked(key: string): number {
    const value = this.fields[key]
    if (typeof value !== 'number' || !Number.isFinite(value))
      this.fail(`\`${key}\`: expected a number, got ${describeValue(value)}`)
    return value
  }
}
