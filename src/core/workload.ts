/**
 * The workload a cell measured, as a results file records it, and how two of them differ. Two cells with the
 * same id but another workload (concurrency, lengths, requests, rate, API, request body, prompts, conversation turns,
 * thinking) measured different things: comparing their speeds would call a heavier workload a regression and a
 * lighter one an improvement.
 * Latency targets (`slo`) are part of it too: goodput counted against other bounds is another figure.
 */
import { createHash } from 'node:crypto'
import { formatDuration } from './format.js'
import type { Api, PromptKind, SloBounds } from './plan.js'

export interface CellWorkload {
  inputTokens: number
  outputTokens: number
  concurrency: number
  requests: number
  /** Open-loop arrival rate in requests/s; null for closed-loop concurrency. */
  rate: number | null
  /** The API the requests went to. Absent in files written before it was recorded: then unknown. */
  api?: Api
  /** Digest of the scenario's extra request fields (`request-body`); absent when there are none. */
  requestBody?: string
  /**
   * Lengths nobody requested (an ingested dataset run named with `--scenario`): the value is the achieved mean,
   * which moves from run to run, so workloads are not told apart by it.
   */
  unrequested?: ('inputTokens' | 'outputTokens')[]
  /** Tokens every request of a round shared at its start (`prefix-tokens`); absent: every prompt unique. */
  prefixTokens?: number
  /** The scenario's latency targets (`slo`), which goodput is counted against; absent when it has none. */
  slo?: SloBounds
  /**
   * `text` for instructions and passages of prose (`prompts: text`); absent: the word list, as every file written
   * before prompts could be anything else measured.
   */
  prompts?: PromptKind
  /** Requests per conversation and tokens of each later user message (`turns`, `turn-tokens`); absent: one request each. */
  turns?: number
  turnTokens?: number
  /** The chat template's `enable_thinking` as sent (`thinking: on | off`); absent: not sent. */
  thinking?: boolean
}

/** Keys a canonical JSON text sorts, so that `{a, b}` and `{b, a}` digest alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

/** A short digest of `request-body` (12 hex digits of SHA-256); undefined when it adds nothing. */
export function requestBodyDigest(body: Record<string, unknown>): string | undefined {
  if (Object.keys(body).length === 0) return undefined
  return createHash('sha256').update(canonical(body)).digest('hex').slice(0, 12)
}

/** The prompts a workload sent: the word list unless it says otherwise. */
export function promptsOf(w: CellWorkload): PromptKind {
  return w.prompts ?? 'synthetic'
}

/**
 * A workload as one short string, the same for the same workload: `in1024 out128 c8 n8 closed completions`
 * (`+body:<digest>` with a request body, `+prompts:text` with text prompts). History entries keep its digest per
 * cell; a word-list workload's string is what it was before prompts could be anything else.
 */
export function workloadFingerprint(w: CellWorkload): string {
  const rate = w.rate === null ? 'closed' : `rate${w.rate}`
  const body = w.requestBody ? ` +body:${w.requestBody}` : ''
  const prompts = promptsOf(w) === 'synthetic' ? '' : ` +prompts:${promptsOf(w)}`
  const length = (key: 'inputTokens' | 'outputTokens') => (w.unrequested?.includes(key) ? '?' : String(w[key]))
  const prefix = w.prefixTokens ? ` prefix${w.prefixTokens}` : ''
  const slo = w.slo ? ` slo:${sloText(w.slo)}` : ''
  return `in${length('inputTokens')} out${length('outputTokens')} c${w.concurrency} n${w.requests} ${rate} ${w.api ?? 'api?'}${body}${prompts}${prefix}${slo}${conversationText(w)}`
}

/** ` turns4x256 thinking:off`: a conversation's shape and the template's thinking switch; empty for neither. */
function conversationText(w: CellWorkload): string {
  const turns = w.turns ? ` turns${w.turns}x${w.turnTokens ?? 0}` : ''
  return w.thinking === undefined ? turns : `${turns} thinking:${w.thinking ? 'on' : 'off'}`
}

/** Each `slo` bound, with the name it has in the matrix file, which is also the metric it bounds (`ttft`, `tpot`, `e2e`). */
export const SLO_BOUNDS: [keyof SloBounds, 'ttft' | 'tpot' | 'e2e'][] = [
  ['ttftMs', 'ttft'],
  ['tpotMs', 'tpot'],
  ['e2eMs', 'e2e'],
]

/** `ttft≤2000ms tpot≤80ms`: the bounds an SLO gives, in a fixed order and exact, for the fingerprint. */
export function sloText(slo: SloBounds): string {
  return SLO_BOUNDS.flatMap(([key, name]) => (slo[key] === undefined ? [] : [`${name}≤${slo[key]}ms`])).join(' ')
}

/** `TTFT ≤ 2s, TPOT ≤ 80ms`: the bounds as the report and `validate` show them. */
export function formatSlo(slo: SloBounds): string {
  return SLO_BOUNDS.flatMap(([key, name]) =>
    slo[key] === undefined ? [] : [`${name.toUpperCase()} ≤ ${formatDuration(slo[key])}`],
  ).join(', ')
}

/** 8 hex digits of the fingerprint's SHA-256: what a history entry stores per cell (small, and equal iff equal). */
export function workloadDigest(w: CellWorkload): string {
  return createHash('sha256').update(workloadFingerprint(w)).digest('hex').slice(0, 8)
}

/** True when the workload records its API, so that its digest covers everything a workload is. */
export function isComplete(w: CellWorkload): boolean {
  return w.api !== undefined
}

/**
 * What changed from the baseline's workload to the current one, in words (`concurrency 8 → 16`); empty when they
 * are the same. A workload written before the API and request body were recorded is compared on what it has.
 */
export function workloadChanges(baseline: CellWorkload, current: CellWorkload): string[] {
  const changes: string[] = []
  const numbers: ['inputTokens' | 'outputTokens' | 'concurrency' | 'requests', string][] = [
    ['inputTokens', 'input tokens'],
    ['outputTokens', 'output tokens'],
    ['concurrency', 'concurrency'],
    ['requests', 'requests'],
  ]
  const unrequested = new Set([...(baseline.unrequested ?? []), ...(current.unrequested ?? [])])
  for (const [key, label] of numbers)
    if (!unrequested.has(key as 'inputTokens') && baseline[key] !== current[key])
      changes.push(`${label} ${baseline[key]} → ${current[key]}`)
  if ((baseline.prefixTokens ?? 0) !== (current.prefixTokens ?? 0))
    changes.push(`prefix tokens ${baseline.prefixTokens ?? 0} → ${current.prefixTokens ?? 0}`)
  if (baseline.rate !== current.rate)
    changes.push(`rate ${baseline.rate ?? 'closed-loop'} → ${current.rate ?? 'closed-loop'}`)
  if (isComplete(baseline) && isComplete(current)) {
    if (baseline.api !== current.api) changes.push(`api ${baseline.api} → ${current.api}`)
    if (baseline.requestBody !== current.requestBody) changes.push('request-body changed')
  }
  const [before, after] = [baseline.slo, current.slo].map((slo) => (slo ? sloText(slo) : 'none'))
  if (before !== after) changes.push(`slo ${before} → ${after}`)
  if (promptsOf(baseline) !== promptsOf(current)) changes.push(`prompts ${promptsOf(baseline)} → ${promptsOf(current)}`)
  if ((baseline.turns ?? 1) !== (current.turns ?? 1))
    changes.push(`turns ${baseline.turns ?? 1} → ${current.turns ?? 1}`)
  if ((baseline.turnTokens ?? 0) !== (current.turnTokens ?? 0))
    changes.push(`turn tokens ${baseline.turnTokens ?? 0} → ${current.turnTokens ?? 0}`)
  const thinking = (w: CellWorkload) => (w.thinking === undefined ? 'unset' : w.thinking ? 'on' : 'off')
  if (thinking(baseline) !== thinking(current)) changes.push(`thinking ${thinking(baseline)} → ${thinking(current)}`)
  return changes
}
