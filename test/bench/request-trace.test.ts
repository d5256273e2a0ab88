/**
 * A round's requests placed on concurrency slots and drawn as Chrome/Perfetto trace spans (bench/rounds/request-trace.ts):
 * a closed loop of 8 requests at concurrency 4 uses exactly 4 tracks, a track's spans never overlap, a request that
 * got no token is one `failed` span, and the JSON line says when each moment was, from the origin.
 */
import { describe, expect, it } from 'vitest'
import type { RequestRecord } from '../../src/core/measurements.js'
import {
  placeRequests,
  requestLine,
  requestSpans,
  roundMetadata,
  type TraceEvent,
} from '../../src/bench/rounds/request-trace.js'
import { checkTrace } from '../helpers/trace-check.js'

function request(index: number, sentAt: number, ttftMs: number, endMs: number, extra: Partial<RequestRecord> = {}) {
  return {
    index,
    ok: true,
    queueMs: sentAt - 1000,
    sentAt,
    ttftMs,
    e2eMs: endMs,
    endMs,
    promptTokens: 100,
    outputTokens: 8,
    usageReported: true,
    itlMs: [],
    chunks: 8,
    ...extra,
  } satisfies RequestRecord
}

/** A closed loop at concurrency 4, all due at 1000 ms: each slot sends its next request as its previous one ends. */
function closedLoop(): RequestRecord[] {
  const records: RequestRecord[] = []
  for (let slot = 0; slot < 4; slot++) {
    const first = request(slot * 2, 1000 + slot * 0.5, 20 + slot, 100 + slot * 10)
    const next = request(slot * 2 + 1, first.sentAt + first.endMs + 0.2, 15, 90)
    records.push(first, next)
  }
  return records
}

const identity = (text: string) => text

/** Spans of one track that start before the previous one ended, as the trace viewer's checks find them. */
function overlaps(events: TraceEvent[]): string[] {
  return checkTrace(JSON.stringify({ traceEvents: events })).overlaps
}

describe('placeRequests', () => {
  it('puts a closed loop at concurrency 4 on exactly 4 slots, each slot holding one request at a time', () => {
    const placed = placeRequests(closedLoop())
    expect(new Set(placed.map((p) => p.slot))).toEqual(new Set([1, 2, 3, 4]))
    const events = placed.flatMap((p) => requestSpans(p, 1, 1000, identity))
    expect(overlaps(events)).toEqual([])
    // The second request of a slot queued from the moment its slot freed, not from the round's start.
    const second = placed.find((p) => p.record.index === 1)!
    expect(second.from).toBeCloseTo(1000 + 100, 6)
  })

  it('gives an open loop as many slots as it had requests in flight at once', () => {
    // Three overlapping requests, then one after all of them ended.
    const records = [request(0, 0, 5, 50), request(1, 10, 5, 50), request(2, 20, 5, 50), request(3, 200, 5, 50)]
    const placed = placeRequests(records.map((r) => ({ ...r, queueMs: 0 })))
    expect(placed.map((p) => p.slot)).toEqual([1, 2, 3, 1])
  })
})

describe('requestSpans', () => {
  it('draws queue, prefill and decode back to back, in whole µs from the origin', () => {
    const [p] = placeRequests([request(0, 1002.5, 20, 100, { queueMs: 2.5 })])
    const spans = requestSpans(p, 3, 1000, identity)
    expect(spans.map((e) => [e.name, e.ts, e.dur, e.pid, e.tid])).toEqual([
      ['queue', 0, 2500, 3, 1],
      ['prefill', 2500, 20000, 3, 1],
      ['decode', 22500, 80000, 3, 1],
    ])
    expect(spans[2].args).toMatchObject({ request: 0, prompt_tokens: 100, output_tokens: 8, ttft_ms: 20 })
  })

  it('draws a request that got no token as one failed span carrying its error', () => {
    const failed = request(4, 1000, 0, 30, { ok: false, e2eMs: 0, queueMs: 0, error: 'HTTP 500: boom' })
    const [p] = placeRequests([failed])
    const spans = requestSpans(p, 1, 1000, (t) => t.toUpperCase())
    expect(spans).toHaveLength(1)
    expect(spans[0]).toMatchObject({ ph: 'X', name: 'failed', ts: 0, dur: 30000, args: { error: 'HTTP 500: BOOM' } })
  })
})

describe('requestLine', () => {
  it('writes the request moments in ms from the origin, and null for a first token that never came', () => {
    const [ok] = placeRequests([request(7, 1010, 20, 100, { queueMs: 10 })])
    expect(JSON.parse(requestLine(ok, 2, 1000, identity))).toEqual({
      round: 2,
      request: 7,
      slot: 1,
      ok: true,
      due_ms: 0,
      sent_ms: 10,
      first_token_ms: 30,
      end_ms: 110,
      queue_ms: 10,
      ttft_ms: 20,
      e2e_ms: 100,
      prompt_tokens: 100,
      output_tokens: 8,
    })
    const [failed] = placeRequests([request(8, 1000, 0, 5, { ok: false, queueMs: 0, error: 'x' })])
    expect(JSON.parse(requestLine(failed, 2, 1000, identity))).toMatchObject({ first_token_ms: null, error: 'x' })
  })
})

describe('roundMetadata', () => {
  it('names the round and each slot', () => {
    const named = roundMetadata(2, 'round 2', 2)
    expect(named.filter((e) => e.name === 'process_name')).toEqual([
      { ph: 'M', name: 'process_name', pid: 2, tid: 0, args: { name: 'round 2' } },
    ])
    expect(named.filter((e) => e.name === 'thread_name').map((e) => [e.tid, e.args?.name])).toEqual([
      [1, 'slot 1'],
      [2, 'slot 2'],
    ])
  })
})
