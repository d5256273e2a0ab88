/** Per-round reduction and flags, on hand-made records whose figures follow from SPEC §5 by hand. */
import { describe, expect, it } from 'vitest'
import { cellFlags } from '../../src/bench/rounds/flags.js'
import { steadyState, summarizeRound } from '../../src/bench/rounds/round.js'
import type { RequestRecord } from '../../src/core/measurements.js'

const rec = (over: Partial<RequestRecord>): RequestRecord => ({
  index: 0,
  ok: true,
  queueMs: 0,
  sentAt: 0,
  ttftMs: 100,
  e2eMs: 400,
  promptTokens: 10,
  outputTokens: 4,
  usageReported: true,
  itlMs: [100, 100, 100],
  chunks: 4,
  ...over,
})

const records = [
  rec({ index: 0 }),
  rec({ index: 1, sentAt: 50, ttftMs: 150, e2eMs: 650, outputTokens: 6, itlMs: [100, 100, 100, 100, 100], chunks: 6 }),
  rec({
    index: 2,
    sentAt: 20,
    ok: false,
    error: 'stream cut: connection closed mid-stream',
    ttftMs: 0,
    e2eMs: 0,
    outputTokens: 0,
  }),
]

describe('summarizeRound', () => {
  const round = summarizeRound({ index: 1, steady: true, concurrency: 2, endedAt: 1_000 }, records)

  it('counts failures and leaves them out of every statistic', () => {
    expect([round.requests, round.errors]).toEqual([3, 1])
    expect(round.errorReasons).toEqual([{ reason: 'stream cut: connection closed mid-stream', count: 1 }])
    expect(round.metrics.ttft_ms).toMatchObject({ mean: 125, min: 100, max: 150 })
  })

  it('derives per-request metrics from token counts, not chunks', () => {
    // TPOT: (400 − 100)/(4 − 1) = 100 and (650 − 150)/(6 − 1) = 100 → decode 10 tok/s.
    expect(round.metrics.tpot_ms).toMatchObject({ mean: 100, std: 0 })
    expect(round.metrics.decode_tps).toMatchObject({ mean: 10, min: 10, max: 10 })
    // Prefill: 10 tokens / 0.1 s = 100 and 10 / 0.15 s = 66.67.
    expect(round.metrics.prefill_tps.mean).toBeCloseTo((100 + 200 / 3) / 2, 9)
    expect(round.metrics.itl_ms).toMatchObject({ mean: 100, p99: 100 })
    expect(round.metrics.e2e_ms).toMatchObject({ mean: 525, min: 400, max: 650 })
  })

  it('measures the round from the first send to the last token', () => {
    // First send at 0 (even the failed one counts as sent), last token at 50 + 650 = 700 ms.
    expect(round.durationMs).toBe(700)
    expect(round.metrics.output_tps).toBeCloseTo(10 / 0.7, 9)
    expect(round.metrics.total_tps).toBeCloseTo(30 / 0.7, 9)
    expect(round.metrics.request_tps).toBeCloseTo(2 / 0.7, 9)
    expect(round.metrics.per_user_tps).toBeCloseTo(10 / 0.7 / 2, 9)
    expect(round.achieved).toEqual({ promptTokens: { min: 10, max: 10 }, outputTokens: { min: 4, max: 6 } })
  })

  it('takes the decode mean as 1000 / mean TPOT, not the mean of per-request rates', () => {
    // One request with every token after the first in one burst (0.5 ms TPOT, 2,000 tok/s) among seven at 40 ms
    // (25 tok/s): the rates average 271.9 tok/s; TPOT averages 35.06 ms, i.e. 28.5 tok/s.
    const burst = rec({ ttftMs: 100, e2eMs: 101.5, outputTokens: 4 })
    const steady = Array.from({ length: 7 }, (_, i) => rec({ index: i + 1, ttftMs: 100, e2eMs: 220, outputTokens: 4 }))
    const r = summarizeRound({ index: 0, steady: true, concurrency: 8, endedAt: 0 }, [burst, ...steady])
    expect(r.metrics.tpot_ms.mean).toBeCloseTo((0.5 + 7 * 40) / 8, 9)
    expect(r.metrics.decode_tps.mean).toBeCloseTo(1000 / ((0.5 + 7 * 40) / 8), 9)
    // The per-request distribution stays: percentiles and extremes of the rates themselves.
    expect(r.metrics.decode_tps).toMatchObject({ min: 25, max: 2000, p50: 25 })
  })

  it('leaves one-token requests out of TPOT, as vLLM does', () => {
    const r = summarizeRound({ index: 0, steady: true, concurrency: 1, endedAt: 0 }, [
      rec({ outputTokens: 1, e2eMs: 100, itlMs: [], chunks: 1 }),
    ])
    expect(r.metrics.tpot_ms.mean).toBe(0)
    expect(r.metrics.decode_tps.mean).toBe(0)
    expect(r.metrics.ttft_ms.mean).toBe(100)
  })
})

describe('steadyState', () => {
  const at = (index: number, steady: boolean, ttft: number, failed = false) =>
    summarizeRound({ index, steady, concurrency: 1, endedAt: 0 }, [
      rec({ ttftMs: ttft, e2eMs: ttft + 300, ok: !failed, error: failed ? 'HTTP 500: x' : undefined }),
    ])

  it('averages the steady rounds only, skipping one where nothing succeeded', () => {
    const s = steadyState([at(0, false, 900), at(1, true, 100), at(2, true, 0, true), at(3, true, 200)])
    expect(s?.ttft_ms.mean).toBe(150)
    expect(s?.ttft_ms.p99).toBe(150)
  })

  it('is null when no steady round had a success', () => {
    expect(steadyState([at(0, false, 100), at(1, true, 0, true)])).toBeNull()
  })
})

describe('cellFlags', () => {
  const scenario = { id: 's', inputTokens: 10, outputTokens: 6, concurrency: 2, requests: 3 }
  const round = summarizeRound({ index: 1, steady: true, concurrency: 2, endedAt: 0 }, records)

  it.each([
    [
      'a length miss and a failed share above the limit',
      records,
      0.2,
      ['lengths-missed: output 4-6/6', 'errors: 1/3 in round 2'],
    ],
    ['the failed share within the limit', records, 0.5, ['lengths-missed: output 4-6/6']],
    ['prompt misses too', [rec({ promptTokens: 9, outputTokens: 6 })], 0, ['lengths-missed: prompt 9/10']],
    [
      'counts made up from chunks',
      [rec({ outputTokens: 6, usageReported: false }), rec({ outputTokens: 6 })],
      0,
      ['usage-missing: 1/2 requests'],
    ],
    ['nothing wrong', [rec({ outputTokens: 6 })], 0, []],
  ])('%s', (_name, requests, share, flags) => {
    const rounds =
      requests === records
        ? [round]
        : [summarizeRound({ index: 0, steady: true, concurrency: 1, endedAt: 0 }, requests)]
    expect(cellFlags(scenario, rounds, requests, share)).toEqual(flags)
  })

  it('ignores failures in discarded rounds', () => {
    const cold = summarizeRound({ index: 0, steady: false, concurrency: 2, endedAt: 0 }, records)
    expect(cellFlags(scenario, [cold], [], 0)).toEqual([])
  })
})
