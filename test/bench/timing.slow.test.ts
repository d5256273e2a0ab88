/**
 * Acceptance: against a server with a known schedule, the client reports that schedule.
 * Tolerances come from the schedule: the server never writes early (absolute deadlines), so TTFT
 * can only read high, and every interval is off by no more than the event loop's spells around its
 * ends, which the test traces (test/helpers/lag-trace.ts; server and client share this thread's
 * loop), plus a request's trip over loopback and a timer's whole-millisecond rounding.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient, type BenchClient } from '../../src/bench/measure.js'
import type { Api, ScenarioPlan } from '../../src/core/plan.js'
import {
  startScheduledServer,
  type ScheduledServer,
  type ScheduledServerOptions,
} from '../../harness/scheduled-server.js'
import { relativeBound, traceLag } from '../helpers/lag-trace.js'
import { plainAdapter } from './adapter.js'

const TTFT = 300
const GAP = 25
const OUT = 32
const scenario: ScenarioPlan = { id: 'acceptance', inputTokens: 64, outputTokens: OUT, concurrency: 4, requests: 4 }

let server: ScheduledServer | undefined
let client: BenchClient | undefined
afterEach(async () => {
  await client?.close()
  await server?.close()
  client = server = undefined
})

async function measure(api: Api, options: ScheduledServerOptions) {
  server = await startScheduledServer({ ttftMs: TTFT, intervalMs: GAP, ...options })
  client = createBenchClient({
    baseUrl: server.url,
    adapter: plainAdapter,
    model: undefined,
    api,
    requestTimeoutMs: 10_000,
    maxConcurrency: 4,
  })
  const progress: number[] = []
  const lag = traceLag()
  const m = await client
    .measure({
      scenario,
      rounds: 2,
      discard: 1,
      maxErrorShare: 0,
      seed: 1,
      onRound: (p) => progress.push(p.round),
    })
    .finally(() => lag.stop())
  const moved = lag.ofRequests(m.requests)
  const chunks = Math.ceil(OUT / (options.tokensPerChunk ?? 1))
  /** How far a figure may be off: over the decode window (first to last chunk) or the round (send to last token). */
  const share = {
    decode: relativeBound((chunks - 1) * GAP, moved.decodeMs),
    // Round: 4 requests sent together, each TTFT + (chunks − 1) gaps long.
    round: relativeBound(TTFT + (chunks - 1) * GAP, moved.roundMs),
  }
  /** TTFT never reads low; it reads high by the spells around send and first token, plus the trip. */
  const ttftWithinSchedule = (ttft: number) => {
    expect(ttft).toBeGreaterThanOrEqual(TTFT)
    expect(ttft).toBeLessThanOrEqual(TTFT + moved.ttftMs + 2)
  }
  return { m, progress, server, share, ttftWithinSchedule, lag }
}

const within = (value: number, expected: number, share: number) => {
  expect(value).toBeGreaterThanOrEqual(expected * (1 - share))
  expect(value).toBeLessThanOrEqual(expected * (1 + share))
}

describe('measurement against an exact schedule (TTFT 300 ms, a chunk every 25 ms, 4 concurrent, 32 tokens)', () => {
  it('completions, one token per chunk', async () => {
    const { m, progress, server, share, ttftWithinSchedule } = await measure('completions', { tokensPerChunk: 1 })
    const s = m.metrics!
    ttftWithinSchedule(s.ttft_ms.mean)
    within(s.tpot_ms.mean, GAP, share.decode)
    within(s.decode_tps.mean, 1000 / GAP, share.decode)
    within(s.itl_ms.mean, GAP, share.decode)
    // Round: 4 requests sent together, each 300 + 31·25 = 1075 ms long.
    within(s.output_tps, (4 * OUT) / 1.075, share.round)
    expect(s.per_user_tps).toBeCloseTo(s.output_tps / 4, 9)
    expect(m.flags).toEqual([])
    expect(m.requests).toHaveLength(4)
    expect(m.requests.every((r) => r.ok && r.outputTokens === OUT && r.promptTokens === 64 && r.chunks === OUT)).toBe(
      true,
    )
    expect(m.rounds.map((r) => [r.steady, r.requests, r.errors])).toEqual([
      [false, 4, 0],
      [true, 4, 0],
    ])
    expect(progress).toEqual([0, 1])
    // The request body of SPEC §5, model from /v1/models.
    const body = server.requests.at(-1)!.body
    expect(body).toMatchObject({
      model: 'scheduled-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: OUT,
      ignore_eos: true,
      temperature: 0,
    })
    expect(typeof body.prompt).toBe('string')
  })

  it('three tokens per chunk: decode speed from tokens, not chunks', async () => {
    const { m, share, ttftWithinSchedule } = await measure('completions', { tokensPerChunk: 3 })
    const s = m.metrics!
    const chunks = Math.ceil(OUT / 3)
    // (N − 1) tokens over (chunks − 1) gaps: 31 / 0.25 s = 124 tok/s, about 3× the 40 chunks/s.
    const decode = (OUT - 1) / (((chunks - 1) * GAP) / 1000)
    within(s.decode_tps.mean, decode, share.decode)
    within(s.tpot_ms.mean, 1000 / decode, share.decode)
    within(s.itl_ms.mean, GAP, share.decode)
    expect(s.decode_tps.mean / (1000 / GAP)).toBeGreaterThan(2.9)
    ttftWithinSchedule(s.ttft_ms.mean)
    expect(m.requests.every((r) => r.chunks === chunks && r.outputTokens === OUT)).toBe(true)
    expect(m.flags).toEqual([])
  })

  it('chat with a role-only first chunk sent before any token', async () => {
    const { m, server, share, ttftWithinSchedule, lag } = await measure('chat', { roleChunk: 'early' })
    const s = m.metrics!
    ttftWithinSchedule(s.ttft_ms.mean)
    within(s.tpot_ms.mean, GAP, share.decode)
    within(s.decode_tps.mean, 1000 / GAP, share.decode)
    for (const r of m.requests) {
      // The role chunk leaves at once: its event reads late only by the spells around the send and its arrival.
      const roleLate = lag.heldAfter(r.sentAt) + lag.lateBy(r.sentAt + r.firstEventMs!) + 2
      expect(r.firstEventMs!).toBeLessThanOrEqual(roleLate)
      expect(r.ttftEvent).toBe(1)
    }
    expect(m.flags).toEqual([])
    const body = server.requests.at(-1)!.body
    expect(body).toMatchObject({ max_tokens: OUT, max_completion_tokens: OUT, messages: [{ role: 'user' }] })
  })
})
