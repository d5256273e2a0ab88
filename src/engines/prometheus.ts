/**
 * Prometheus text exposition (format 0.0.4, and the OpenMetrics subset engines emit) and
 * the vLLM spec-decode formulas over counter deltas (as `vllm bench serve` computes them).
 * Engines export thousands of histogram lines, so the readers given names only parse the
 * lines whose metric name was asked for, one line at a time (`seriesSums`), so a body can be
 * read as it streams in.
 *
 * The format allows `+Inf`, `-Inf` and `NaN` as sample values
 * (https://prometheus.io/docs/instrumenting/exposition_formats/#text-format-details); none of them
 * is a count or a level a round can record, and JSON has no way to write them (`JSON.stringify`
 * writes `null`). So a sample that is not a finite number is missing, and so is a series whose sum
 * over its label sets passes the largest double: absent, never a value.
 */
import type { SpecDecodeStats } from '../core/results.js'
import type { Counters } from './types.js'

interface PromSample {
  name: string
  labels: Record<string, string>
  value: number
}

/** A sample's value; NaN for anything but a finite number (`+Inf`, `-Inf`, `NaN`, `1e400`, garbage). */
function parseValue(token: string): number {
  const value = token === '' ? Number.NaN : Number(token)
  return Number.isFinite(value) ? value : Number.NaN
}

/** Where the metric name of a sample line ends (`{` or whitespace), or -1 for comments and blanks. */
function nameEnd(line: string): number {
  if (line === '' || line[0] === '#') return -1
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c === 123 /* { */ || c === 32 || c === 9) return i
  }
  return -1
}

/** Parses `{a="x",b="y\"z"}` starting at `start` (the `{`); returns the labels and the index after `}`. */
function parseLabels(line: string, start: number): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = {}
  let i = start + 1
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === ',') i++
    if (line[i] === '}') return { labels, end: i + 1 }
    const eq = line.indexOf('=', i)
    if (eq < 0 || line[eq + 1] !== '"') return undefined
    const key = line.slice(i, eq).trim()
    let value = ''
    let j = eq + 2
    for (; j < line.length && line[j] !== '"'; j++) {
      if (line[j] === '\\' && j + 1 < line.length) {
        j++
        value += line[j] === 'n' ? '\n' : line[j]
      } else value += line[j]
    }
    if (j >= line.length) return undefined
    labels[key] = value
    i = j + 1
  }
  return undefined
}

function parseLine(line: string, end: number): PromSample | undefined {
  const name = line.slice(0, end)
  let labels: Record<string, string> = {}
  let rest = end
  if (line[end] === '{') {
    const parsed = parseLabels(line, end)
    if (!parsed) return undefined
    labels = parsed.labels
    rest = parsed.end
  }
  // value, then an optional timestamp
  const token = line.slice(rest).trim().split(/\s+/)[0] ?? ''
  const value = parseValue(token)
  return Number.isNaN(value) ? undefined : { name, labels, value }
}

export interface SeriesSums {
  /** Adds one line of the body (without its newline); comments, other metrics and malformed lines are skipped. */
  add(line: string): void
  /** One finite number per metric name seen, summed over its label sets. */
  sums(): Counters
}

/**
 * Sums per metric name over label sets (engine ranks, model names), a line at a time. `names` keeps only those
 * metrics; absent ones stay absent rather than 0, and a name whose sum is not finite is absent too.
 */
export function seriesSums(names?: readonly string[]): SeriesSums {
  const wanted = names ? new Set(names) : undefined
  const counters: Counters = {}
  const overflowed = new Set<string>()
  return {
    add(raw) {
      const line = raw.trim()
      const end = nameEnd(line)
      if (end <= 0 || (wanted && !wanted.has(line.slice(0, end)))) return
      const sample = parseLine(line, end)
      if (!sample || overflowed.has(sample.name)) return
      const sum = (counters[sample.name] ?? 0) + sample.value
      if (Number.isFinite(sum)) counters[sample.name] = sum
      else {
        overflowed.add(sample.name)
        delete counters[sample.name]
      }
    },
    sums: () => ({ ...counters }),
  }
}

/** `seriesSums` over a whole body. */
export function sumByName(text: string, names?: readonly string[]): Counters {
  const sums = seriesSums(names)
  let start = 0
  while (start < text.length) {
    let stop = text.indexOf('\n', start)
    if (stop < 0) stop = text.length
    sums.add(text.slice(start, stop))
    start = stop + 1
  }
  return sums.sums()
}

export const VLLM_DRAFT_COUNTERS = {
  drafts: 'vllm:spec_decode_num_drafts_total',
  draftTokens: 'vllm:spec_decode_num_draft_tokens_total',
  accepted: 'vllm:spec_decode_num_accepted_tokens_total',
} as const

/** Counters worth diffing around a cell on a vLLM-dialect server. */
export const VLLM_COUNTER_NAMES = [
  ...Object.values(VLLM_DRAFT_COUNTERS),
  'vllm:prompt_tokens_total',
  'vllm:generation_tokens_total',
  'vllm:request_success_total',
] as const

function delta(before: Counters | undefined, after: Counters, name: string): number | undefined {
  const end = after[name]
  if (end === undefined) return undefined
  return end - (before?.[name] ?? 0)
}

/**
 * vLLM formulas: acceptance_rate = Δaccepted / Δdraft_tokens, acceptance_length = 1 + Δaccepted / Δdrafts.
 * Undefined when the server has no spec-decode counters or drafted nothing in the window.
 */
export function vllmSpecDecode(
  before: Counters | undefined,
  after: Counters | undefined,
  source = 'vllm /metrics counter deltas',
): SpecDecodeStats | undefined {
  if (!after) return undefined
  const drafts = delta(before, after, VLLM_DRAFT_COUNTERS.drafts)
  const draftTokens = delta(before, after, VLLM_DRAFT_COUNTERS.draftTokens)
  const accepted = delta(before, after, VLLM_DRAFT_COUNTERS.accepted)
  if (drafts === undefined || draftTokens === undefined || accepted === undefined) return undefined
  if (drafts <= 0 || draftTokens <= 0 || accepted < 0) return undefined
  const acceptanceRate = accepted / draftTokens
  const acceptanceLength = 1 + accepted / drafts
  // Counters a restart reset, or that overflow when divided, give no figure rather than a wrong one.
  if (!Number.isFinite(acceptanceRate) || !Number.isFinite(acceptanceLength)) return undefined
  return {
    acceptanceRate: Math.min(1, acceptanceRate),
    acceptanceLength,
    draftTokens,
    acceptedTokens: accepted,
    source,
  }
}
