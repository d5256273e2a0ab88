/**
 * Prometheus text exposition (what vLLM and the sim serve on /metrics) and the vLLM
 * spec-decode formulas over counter deltas (as `vllm bench serve` computes them).
 */
import type { SpecDecodeStats } from '../results.js'
import type { Counters } from './types.js'

export interface PromSample {
  name: string
  labels: Record<string, string>
  value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?$/
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/gy

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
}

function parseValue(raw: string): number {
  if (raw === '+Inf' || raw === 'Inf') return Infinity
  if (raw === '-Inf') return -Infinity
  return Number(raw)
}

function parseLabels(body: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  let match: RegExpExecArray | null
  while (LABEL.lastIndex < body.length && (match = LABEL.exec(body))) labels[match[1]] = unescapeLabel(match[2])
  return LABEL.lastIndex === body.length || body.slice(LABEL.lastIndex).trim() === '' ? labels : undefined
}

/** Every sample line; comments, blank and malformed lines are skipped. */
export function parsePrometheus(text: string): PromSample[] {
  const samples: PromSample[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const m = SAMPLE.exec(line)
    if (!m) continue
    const labels = m[3] ? parseLabels(m[3]) : {}
    const value = parseValue(m[4])
    if (!labels || Number.isNaN(value)) continue
    samples.push({ name: m[1], labels, value })
  }
  return samples
}

/**
 * One number per metric name, summed over label sets (engine ranks, model names).
 * `names` keeps only those metrics; absent ones stay absent rather than 0.
 */
export function sumByName(text: string, names?: readonly string[]): Counters {
  const keep = names ? new Set(names) : undefined
  const out: Counters = {}
  for (const s of parsePrometheus(text)) {
    if (keep && !keep.has(s.name)) continue
    out[s.name] = (out[s.name] ?? 0) + s.value
  }
  return out
}

export const VLLM_SPEC_COUNTERS = {
  drafts: 'vllm:spec_decode_num_drafts_total',
  draftTokens: 'vllm:spec_decode_num_draft_tokens_total',
  accepted: 'vllm:spec_decode_num_accepted_tokens_total',
} as const

/** Counters worth diffing around a cell on a vLLM-dialect server. */
export const VLLM_COUNTER_NAMES = [
  ...Object.values(VLLM_SPEC_COUNTERS),
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
export function vllmSpecDecode(before: Counters | undefined, after: Counters | undefined, source = 'vllm /metrics counter deltas'): SpecDecodeStats | undefined {
  if (!after) return undefined
  const drafts = delta(before, after, VLLM_SPEC_COUNTERS.drafts)
  const draftTokens = delta(before, after, VLLM_SPEC_COUNTERS.draftTokens)
  const accepted = delta(before, after, VLLM_SPEC_COUNTERS.accepted)
  if (drafts === undefined || draftTokens === undefined || accepted === undefined) return undefined
  if (drafts <= 0 || draftTokens <= 0) return undefined
  return { acceptanceRate: accepted / draftTokens, acceptanceLength: 1 + accepted / drafts, draftTokens, acceptedTokens: accepted, source }
}
