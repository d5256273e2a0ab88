/**
 * Goodput on hand-made records: which request is good under an SLO (a value at its bound meets it, as vLLM's
 * `s >= r`), the round's share and good requests/s, and the steady state over every steady round.
 */
import { describe, expect, it } from 'vitest'
import { goodputFigures, meetsSlo, requestTpot } from '../../src/bench/rounds/goodput.js'
import { steadyState, summarizeRound } from '../../src/bench/rounds/round.js'
import type { RequestRecord } from '../../src/core/measurements.js'
import type { SloBounds } from '../../src/core/plan.js'

/** TTFT 100 ms, e2e 400 ms, 4 tokens: TPOT (400 − 100) / 3 = 100 ms. */
const rec = (over: Partial<RequestRecord> = {}): RequestRecord => ({
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

describe('requestTpot', () => {
  it('is (e2e − TTFT) / (output tokens − 1), and none for a request of one token', () => {
    expect(requestTpot(rec())).toBe(100)
    expect(requestTpot(rec({ outputTokens: 1, e2eMs: 100 }))).toBeUndefined()
  })
})

describe('meetsSlo', () => {
  it.each<[string, Partial<RequestRecord>, SloBounds, boolean]>([
    ['TTFT exactly at its bound', {}, { ttftMs: 100 }, true],
    ['TTFT 1 ms past its bound', { ttftMs: 101, e2eMs: 401 }, { ttftMs: 100 }, false],
    ['TPOT exactly at its bound', {}, { tpotMs: 100 }, true],
    ['TPOT just past its bound', { e2eMs: 400.3 }, { tpotMs: 100 }, false],
    ['e2e exactly at its bound', {}, { e2eMs: 400 }, true],
    ['e2e 1 ms past its bound', { e2eMs: 401 }, { e2eMs: 400 }, false],
    ['every bound met', {}, { ttftMs: 100, tpotMs: 100, e2eMs: 400 }, true],
    ['one bound of three missed', {}, { ttftMs: 100, tpotMs: 99, e2eMs: 400 }, false],
    [
      'a failed request, however quick',
      { ok: false, error: 'HTTP 500: x', ttftMs: 0, e2eMs: 0 },
      { e2eMs: 400 },
      false,
    ],
    ['one output token: no TPOT, so the tpot bound holds', { outputTokens: 1, e2eMs: 100 }, { tpotMs: 1 }, true],
    ['one output token still has its TTFT bound', { outputTokens: 1, e2eMs: 100 }, { ttftMs: 50 }, false],
  ])('%s', (_name, over, slo, good) => {
    expect(meetsSlo(rec(over), slo)).toBe(good)
  })
})

describe('goodputFigures', () => {
  it('counts good requests over every request sent, and per second of the round', () => {
    const records = [rec(), rec({ e2eMs: 700 }), rec({ ok: false, error: 'stream cut' }), rec()]
    // Two of four are good (the slow one's TPOT of 200 ms misses 150 ms; a failed one is never good), over 2 s.
    expect(goodputFigures(records, { tpotMs: 150 }, 2000)).toEqual({ goodput: 0.5, request_goodput: 1 })
  })

  it('is 0 for an empty round and a round of no duration', () => {
    expect(goodputFigures([], { ttftMs: 1 }, 0)).toEqual({ goodput: 0, request_goodput: 0 })
  })
})

describe('summarizeRound with an slo', () => {
  // Sent at 0, 50 and 100; the last token at 400, 650 and 1100: the round lasts 1.1 s.
  const records = [rec(), rec({ sentAt: 50, e2eMs: 600 }), rec({ sentAt: 100, ttftMs: 300, e2eMs: 1000 })]
  const ctx = { index: 1, steady: true, concurrency: 3, endedAt: 0 }

  it('records the share of good requests and good requests/s', () => {
    const { metrics } = summarizeRound({ ...ctx, slo: { ttftMs: 200, tpotMs: 200 } }, records)
    // TPOTs 100, 166.7 and 233.3 ms; the third also misses TTFT: two of three good.
    expect(metrics.goodput).toBeCloseTo(2 / 3, 12)
    expect(metrics.request_goodput).toBeCloseTo(2 / 1.1, 12)
    expect(metrics.tpot_ms.mean).toBeCloseTo((100 + 500 / 3 + 700 / 3) / 3, 9)
  })

  it('records neither without one', () => {
    const { metrics } = summarizeRound(ctx, records)
    expect(metrics).not.toHaveProperty('goodput')
    expect(metrics).not.toHaveProperty('request_goodput')
  })
})

describe('steadyState with an slo', () => {
  const slo = { e2eMs: 500 }
  const at = (index: number, steady: boolean, e2e: number[], failed = false) =>
    summarizeRound(
      { index, steady, concurrency: 2, endedAt: 1000, slo },
      e2e.map((e2eMs) => rec({ e2eMs, ok: !failed, ...(failed && { error: 'HTTP 500: x' }) })),
    )

  it('is the share over every steady round, one where nothing succeeded included; good req/s over the others', () => {
    const rounds = [
      at(0, false, [900, 900]),
      at(1, true, [400, 400]),
      at(2, true, [400, 900]),
      at(3, true, [1, 1], true),
    ]
    const s = steadyState(rounds)!
    // 3 good of 6 sent in the steady rounds; the discarded round does not count.
    expect(s.goodput).toBeCloseTo(0.5, 12)
    // Good requests/s averages like the other rates, over the rounds that had a success: 2 / 0.4 s and 1 / 0.9 s.
    expect(s.request_goodput).toBeCloseTo((5 + 1 / 0.9) / 2, 12)
  })

  it('has no goodput when the rounds had no slo', () => {
    const plain = summarizeRound({ index: 0, steady: true, concurrency: 1, endedAt: 0 }, [rec()])
    expect(steadyState([plain])).not.toHaveProperty('goodput')
  })
})
