/**
 * A steady round's requests as the per-request record writes them: one JSON line per request (`requests.jsonl`),
 * and the events of a Chrome/Perfetto trace (`trace.json`, the Trace Event Format's complete events `ph: "X"` with
 * `ts` and `dur` in µs and `M` metadata events naming processes and threads; Google's "Trace Event Format"
 * document, which ui.perfetto.dev and chrome://tracing load). A round is one process; each concurrency slot one
 * thread (track): the requests, in the order they were sent, each take the lowest-numbered slot free at its send,
 * so a closed loop at concurrency N uses N tracks and an open loop as many as it had in flight at once. A request
 * is a queue span (due → sent, from when its slot was free), a prefill span (sent → first token) and a decode
 * span (first token → end); one that got no token is a single `failed` span. Times are relative to `origin`.
 */
import type { RequestRecord } from '../../core/measurements.js'

export interface TraceEvent {
  ph: 'X' | 'M'
  name: string
  pid: number
  tid: number
  ts?: number
  dur?: number
  cat?: string
  args?: Record<string, unknown>
}

/** A request's moments on the monotonic clock (ms). */
interface Moments {
  due: number
  sent: number
  firstToken?: number
  end: number
}

function moments(r: RequestRecord): Moments {
  const sent = r.sentAt
  // ttftMs is 0 when no token came (bench/stream/record.ts); a stream cut after tokens has both.
  const firstToken = r.ttftMs > 0 ? sent + r.ttftMs : undefined
  const lasted = r.endMs ?? Math.max(r.e2eMs, r.ttftMs)
  return { due: sent - Math.max(0, r.queueMs), sent, firstToken, end: sent + Math.max(lasted, r.ttftMs, 0) }
}

export interface Placed {
  record: RequestRecord
  at: Moments
  /** From 1. */
  slot: number
  /** When the slot became free for this request (its previous request's end, or the request's due time). */
  from: number
}

/** The requests in send order, each on the lowest-numbered slot whose previous request ended by its send. */
export function placeRequests(records: readonly RequestRecord[]): Placed[] {
  const sorted = records.map((record) => ({ record, at: moments(record) })).sort((a, b) => a.at.sent - b.at.sent)
  const freeAt: number[] = []
  return sorted.map(({ record, at }) => {
    let slot = freeAt.findIndex((t) => t <= at.sent)
    if (slot < 0) slot = freeAt.push(-Infinity) - 1
    const from = Math.max(at.due, freeAt[slot])
    freeAt[slot] = at.end
    return { record, at, slot: slot + 1, from }
  })
}

const ms = (t: number) => Math.round(t * 1000) / 1000

/** One request's line of `requests.jsonl`: times in ms from `origin`, its error already cut and redacted by `error`. */
export function requestLine(p: Placed, round: number, origin: number, error: (text: string) => string): string {
  const { record: r, at } = p
  return JSON.stringify({
    round,
    request: r.index,
    slot: p.slot,
    ok: r.ok,
    due_ms: ms(at.due - origin),
    sent_ms: ms(at.sent - origin),
    first_token_ms: at.firstToken === undefined ? null : ms(at.firstToken - origin),
    end_ms: ms(at.end - origin),
    queue_ms: ms(r.queueMs),
    ttft_ms: at.firstToken === undefined ? null : ms(r.ttftMs),
    e2e_ms: ms(at.end - at.sent),
    prompt_tokens: r.promptTokens,
    output_tokens: r.outputTokens,
    ...(r.error !== undefined && { error: error(r.error) }),
  })
}

/** µs from `origin`, whole: span ends computed from the same rounded instants never overlap the next span. */
const us = (t: number, origin: number) => Math.round((t - origin) * 1000)

function span(name: string, pid: number, tid: number, from: number, to: number, origin: number): TraceEvent {
  const ts = us(from, origin)
  return { ph: 'X', cat: 'request', name, pid, tid, ts, dur: Math.max(0, us(to, origin) - ts) }
}

/** The complete events of one placed request, the last carrying its figures as `args`. */
export function requestSpans(p: Placed, pid: number, origin: number, error: (text: string) => string): TraceEvent[] {
  const { record: r, at, slot } = p
  const events: TraceEvent[] = []
  if (at.sent > p.from) events.push(span('queue', pid, slot, p.from, at.sent, origin))
  if (at.firstToken === undefined) events.push(span('failed', pid, slot, at.sent, at.end, origin))
  else {
    events.push(span('prefill', pid, slot, at.sent, Math.min(at.firstToken, at.end), origin))
    events.push(span(r.ok ? 'decode' : 'decode (failed)', pid, slot, Math.min(at.firstToken, at.end), at.end, origin))
  }
  events[events.length - 1].args = {
    request: r.index,
    prompt_tokens: r.promptTokens,
    output_tokens: r.outputTokens,
    ...(at.firstToken !== undefined && { ttft_ms: ms(r.ttftMs) }),
    ...(r.error !== undefined && { error: error(r.error) }),
  }
  return events
}

/** The metadata events naming a round's process (`label`) and its slots' threads (`slot 3`), in order. */
export function roundMetadata(pid: number, label: string, slots: number): TraceEvent[] {
  const named: TraceEvent[] = [
    { ph: 'M', name: 'process_name', pid, tid: 0, args: { name: label } },
    { ph: 'M', name: 'process_sort_index', pid, tid: 0, args: { sort_index: pid } },
  ]
  for (let slot = 1; slot <= slots; slot++) {
    named.push({ ph: 'M', name: 'thread_name', pid, tid: slot, args: { name: `slot ${slot}` } })
    named.push({ ph: 'M', name: 'thread_sort_index', pid, tid: slot, args: { sort_index: slot } })
  }
  return named
}
