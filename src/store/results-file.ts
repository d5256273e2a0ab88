/**
 * The one reader of results and history files, whoever wrote them: the data branch, `baseline-file`,
 * shard files for `merge`, the CLI's `compare`. A file that cannot be used is a `ConfigError` with one
 * problem per bad field, each naming the file and the field path
 * (`baseline-file ./base.json: cells[2].metrics.ttft_ms.p99: expected a number, got "fast"`).
 */
import type { z } from 'zod'
import { ConfigError, errorMessage } from '../core/errors.js'
import { HISTORY_SCHEMA, RESULTS_SCHEMA, type HistoryFile, type ResultsFile } from '../core/results.js'
import { describeValue } from './results-fields.js'
import { historySchema, resultsSchema } from './results-schema.js'
import { readRegularFile } from '../io/safe-fs.js'

const FAMILY = 'llm-bench-gate/'
/** Past this many, the rest of a file's problems are counted, not listed. */
const MAX_PROBLEMS = 20

export function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new ConfigError([`${where}: not valid JSON (${errorMessage(error)})`])
  }
}

/** True for JSON that makes no claim to be one of ours: no `schema` starting with `llm-bench-gate/`. */
export function isForeign(value: unknown): boolean {
  const schema = (value as { schema?: unknown } | null)?.schema
  return !(typeof schema === 'string' && schema.startsWith(FAMILY))
}

export function resultsFromJson(value: unknown, where: string): ResultsFile {
  return check(value, where, RESULTS_SCHEMA, 'results', resultsSchema)
}

export function historyFromJson(value: unknown, where: string): HistoryFile {
  return check(value, where, HISTORY_SCHEMA, 'history', historySchema)
}

/** `where` names the file in every message: `baseline-file ./base.json`, `llm-bench-data:cpu/baseline.json`. */
export const readResults = (text: string, where: string): ResultsFile => resultsFromJson(parseJson(text, where), where)
export const readHistory = (text: string, where: string): HistoryFile => historyFromJson(parseJson(text, where), where)

/**
 * Never store what cannot be read: the text a writer is about to write, read back with this reader's own checks.
 * `JSON.stringify` writes NaN and ±Infinity as `null`, which no number field accepts, so a non-finite figure that
 * slipped through would make the file unreadable to every later run. Undefined when the text reads back; else why
 * not, naming the file and each field (`out/results.json: not written, it would not read back:
 * cells[0].rounds[1].server.peaks["vllm:kv_cache_usage_perc"]: expected a number, got null`).
 */
export function readBackProblem(text: string, where: string, kind: 'results' | 'history'): string | undefined {
  try {
    if (kind === 'results') readResults(text, where)
    else readHistory(text, where)
    return undefined
  } catch (error) {
    const problems = error instanceof ConfigError ? error.problems : [errorMessage(error)]
    const own = problems.map((p) => (p.startsWith(`${where}: `) ? p.slice(where.length + 2) : p))
    return `${where}: not written, it would not read back: ${own.join('; ')}`
  }
}

/** readBackProblem, thrown: for a writer whose one job is that file (the store's update, `ingest --out`). */
export function checkReadBack(text: string, where: string, kind: 'results' | 'history'): string {
  const problem = readBackProblem(text, where, kind)
  if (problem) throw new Error(problem)
  return text
}

/** Reads a results file from disk; `label` says what it is for (`baseline`), the path follows it in messages. */
export async function readResultsFile(path: string, label: string): Promise<ResultsFile> {
  const where = `${label} ${path}`
  let text: string
  try {
    text = await readRegularFile(path)
  } catch (error) {
    throw new ConfigError([`${where}: cannot read (${errorMessage(error)})`])
  }
  return readResults(text, where)
}

function check<T>(value: unknown, where: string, expected: string, kind: string, schema: z.ZodType<T>): T {
  const foreign = `${where}: not a llm-bench-gate ${kind} file:`
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError([`${foreign} expected a JSON object, got ${describeValue(value)}`])
  const declared = (value as { schema?: unknown }).schema
  if (declared === undefined) throw new ConfigError([`${foreign} schema is missing (expected "${expected}")`])
  if (declared !== expected) {
    const said = `schema is ${describeValue(declared)}`
    throw new ConfigError([
      isForeign(value) ? `${foreign} ${said} (expected "${expected}")` : `${where}: ${said}, expected "${expected}"`,
    ])
  }
  const parsed = schema.safeParse(value, { reportInput: true })
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.flatMap((issue) => issueLines(issue, where))
  const extra = problems.length - MAX_PROBLEMS
  throw new ConfigError(
    extra > 1 ? [...problems.slice(0, MAX_PROBLEMS), `${where}: … and ${extra} more problems`] : problems,
  )
}

function issueLines(issue: z.core.$ZodIssue, where: string): string[] {
  const path = issue.path as PropertyKey[]
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => `${where}: ${fieldPath([...path, key])}: ${issue.message}`)
  return [`${where}: ${fieldPath(path)}: ${issue.message}`]
}

/** `cells[2].metrics.ttft_ms.p99`; keys that are not plain names are quoted: `cells["t/a"]["decode_tps.mean"]`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)'
  return path
    .map((key, i) => {
      if (typeof key === 'number') return `[${key}]`
      const name = String(key)
      if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) return `[${JSON.stringify(name)}]`
      return i === 0 ? name : `.${name}`
    })
    .join('')
}
