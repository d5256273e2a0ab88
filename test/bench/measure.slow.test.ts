/** A cell's measurement when requests fail or the workload drifts: counted, excluded, listed, flagged. */
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient, type BenchClient } from '../../src/bench/measure.js'
import type { Api, ScenarioPlan } from '../../src/core/plan.js'
import { RequestError } from '../../src/core/errors.js'
import type { EngineAdapter } from '../../src/engines/types.js'
import { startReplayServer } from '../helpers/replay-server.js'
import {
  startScheduledServer,
  type ScheduledServer,
  type ScheduledServerOptions,
} from '../../harness/scheduled-server.js'
import { plainAdapter, tokenizingAdapter } from './adapter.js'

const scenario: ScenarioPlan = { id: 's', inputTokens: 40, outputTokens: 8, concurrency: 4, requests: 12 }

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function setup(
  options: ScheduledServerOptions,
  api: Api = 'completions',
  adapter: EngineAdapter = plainAdapter,
  model?: string,
): Promise<{ server: ScheduledServer; client: BenchClient }> {
  const server = await startScheduledServer({ ttftMs: 20, intervalMs: 2, ...options })
  closers.push(() => server.close())
  const client = createBenchClient({
    baseUrl: server.url,
    adapter,
    model,
    api,
    requestTimeoutMs: 2_000,
    maxConcurrency: 4,
  })
  closers.push(() => client.close())
  return { server, client }
}

const run = (client: BenchClient, extra: Partial<ScenarioPlan> = {}, maxErrorShare = 0, rounds = 1) =>
  client.measure({ scenario: { ...scenario, ...extra }, rounds, discard: 0, maxErrorShare, seed: 7 })

describe('failed requests', () => {
  it('are counted per round, grouped by reason, excluded from statistics and flagged past the allowed share', async () => {
    // 12 requests: #4, #8 and #12 get a 500 (which wins over the cut of #12); #3, #6 and #9 are cut.
    const { client } = await setup({ faults: { cutEvery: 3, httpErrorEvery: 4 } })
    const m = await run(client, {}, 0.25)
    const [round] = m.rounds
    expect(round.requests).toBe(12)
    expect(round.errors).toBe(6)
    expect(round.errorReasons).toEqual([
      {
        reason: 'HTTP 500: {"error":{"message":"injected failure","type":"InternalServerError","code":500}}',
        count: 3,
      },
      { reason: 'stream cut: connection closed mid-stream', count: 3 },
    ])
    expect(m.errors).toEqual(round.errorReasons)
    expect(m.requests.filter((r) => !r.ok).map((r) => r.errorKind)).toEqual([
      'cut',
      'http',
      'cut',
      'http',
      'cut',
      'http',
    ])
    // Statistics over the six that succeeded: all 8 tokens, so throughput counts 6 × 8.
    expect(round.achieved.outputTokens).toEqual({ min: 8, max: 8 })
    expect(round.metrics.request_tps * (round.durationMs / 1000)).toBeCloseTo(6, 6)
    expect(round.metrics.output_tps * (round.durationMs / 1000)).toBeCloseTo(48, 6)
    expect(m.flags).toEqual(['errors: 6/12 in round 1'])
    expect(m.metrics).not.toBeNull()
  })

  it('an allowed share of failures raises no flag', async () => {
    const { client } = await setup({ faults: { streamErrorEvery: 6 } })
    const m = await run(client, {}, 0.25)
    expect(m.rounds[0].errorReasons).toEqual([{ reason: 'stream error: injected stream failure', count: 2 }])
    expect(m.flags).toEqual([])
  })

  it('a round where nothing succeeds is visible as such and leaves no steady state', async () => {
    const { client } = await setup({ faults: { httpErrorEvery: 1, httpErrorStatus: 503 } })
    const m = await run(client, { requests: 4 })
    expect(m.rounds[0]).toMatchObject({ requests: 4, errors: 4 })
    expect(m.rounds[0].metrics.ttft_ms).toEqual({ mean: 0, p50: 0, p90: 0, p99: 0, std: 0, min: 0, max: 0 })
    expect(m.metrics).toBeNull()
    expect(m.flags).toEqual(['errors: 4/4 in round 1'])
    expect(m.errors[0].count).toBe(4)
  })
})

describe('workload checks', () => {
  it('flags achieved lengths that miss the request', async () => {
    const { client } = await setup({ outputTokens: 6 })
    const m = await run(client, { requests: 4 })
    expect(m.flags).toEqual(['lengths-missed: output 6/8'])
  })

  it('counts chunks and flags usage-missing when the server sends no usage', async () => {
    const { client } = await setup({ usage: false, tokensPerChunk: 2 })
    const m = await run(client, { requests: 4 })
    expect(m.flags).toEqual(['usage-missing: 4/4 requests'])
    expect(m.requests.every((r) => !r.usageReported && r.outputTokens === 4 && r.promptTokens === 40)).toBe(true)
  })

  it.each([
    ['completions, counted from usage', 'completions', plainAdapter],
    ['chat (template overhead), counted from usage', 'chat', plainAdapter],
    ['completions, counted by /tokenize', 'completions', tokenizingAdapter],
    ['chat, /tokenize blind to the template', 'chat', tokenizingAdapter],
  ] as const)('prompts hit input-tokens exactly: %s', async (_name, api, adapter) => {
    const { server, client } = await setup({ chatOverhead: 11 }, api, adapter)
    const m = await run(client, { inputTokens: 300, requests: 4 }, 0, 2)
    expect(m.flags).toEqual([])
    expect(m.requests.every((r) => r.promptTokens === 300)).toBe(true)
    const measured = server.requests.filter((r) => r.body.max_tokens === 8)
    // Unique per request: no two prompts share their nonce.
    const prompts = measured.map((r) => JSON.stringify(r.body.prompt ?? r.body.messages))
    expect(new Set(prompts).size).toBe(prompts.length)
    // Calibration is done once per input length: the second cell sends no probe.
    const probes = server.requests.length - measured.length
    await run(client, { inputTokens: 300, requests: 4 })
    expect(server.requests.length - 12).toBe(probes)
    expect(probes).toBeLessThanOrEqual(2)
  })
})

describe('client', () => {
  it('sends the configured model, else the first of /v1/models', async () => {
    const { server, client } = await setup({}, 'completions', plainAdapter, 'my-model')
    await client.smoke()
    expect(server.requests[0].body).toMatchObject({ model: 'my-model', max_tokens: 1, stream: true })
  })

  it('smoke() throws the RequestError of a failing server', async () => {
    const server = await startReplayServer({ body: '{"error":"loading"}', status: 503 })
    closers.push(() => server.close())
    const client = createBenchClient({
      baseUrl: server.url,
      adapter: plainAdapter,
      model: 'm',
      api: 'completions',
      requestTimeoutMs: 1_000,
      maxConcurrency: 1,
    })
    closers.push(() => client.close())
    const error = await client.smoke().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestError)
    expect(error).toMatchObject({ kind: 'http', status: 503, message: 'HTTP 503: {"error":"loading"}' })
  })

  it('reports progress at least once per round with running tok/s', async () => {
    const { client } = await setup({})
    const seen: { round: number; done: number; tokensPerSecond: number }[] = []
    await client.measure({
      scenario: { ...scenario, requests: 4 },
      rounds: 3,
      discard: 1,
      maxErrorShare: 0,
      seed: 1,
      onRound: (p) => seen.push(p),
    })
    expect(seen.map((p) => [p.round, p.done])).toEqual([
      [0, 4],
      [1, 4],
      [2, 4],
    ])
    expect(seen.every((p) => p.tokensPerSecond > 0)).toBe(true)
  })

  it('steady state is the mean of the rounds after discard', async () => {
    const { client } = await setup({})
    const m = await client.measure({
      scenario: { ...scenario, requests: 4 },
      rounds: 3,
      discard: 1,
      maxErrorShare: 0,
      seed: 1,
    })
    const [, a, b] = m.rounds
    expect(m.rounds.map((r) => r.steady)).toEqual([false, true, true])
    expect(m.metrics!.ttft_ms.p99).toBeCloseTo((a.metrics.ttft_ms.p99 + b.metrics.ttft_ms.p99) / 2, 9)
    expect(m.metrics!.output_tps).toBeCloseTo((a.metrics.output_tps + b.metrics.output_tps) / 2, 9)
    expect(m.requests).toHaveLength(8)
  })

  it('an aborted measurement throws and leaves nothing running', async () => {
    const { client } = await setup({ ttftMs: 2_000 })
    const abort = new AbortController()
    setTimeout(() => abort.abort(), 400)
    const error = await client
      .measure({
        scenario: { ...scenario, requests: 4 },
        rounds: 2,
        discard: 0,
        maxErrorShare: 0,
        seed: 1,
        signal: abort.signal,
      })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'aborted' })
  })
})

describe('adaptive rounds', () => {
  it('add warm rounds to a measurement: indexed after it, all steady, the steady state and requests over every steady round', async () => {
    const { client } = await setup({})
    const first = await client.measure({ scenario, rounds: 2, discard: 1, maxErrorShare: 0, seed: 7 })
    const more = await client.measure({ scenario, rounds: 2, discard: 1, maxErrorShare: 0, seed: 7, after: first })
    expect(more.rounds.map((r) => [r.index, r.steady])).toEqual([
      [0, false],
      [1, true],
      [2, true],
      [3, true],
    ])
    expect(more.rounds.slice(0, 2)).toEqual(first.rounds)
    expect(more.requests).toHaveLength(3 * scenario.requests)
    const steady = more.rounds.filter((r) => r.steady)
    const meanTtft = steady.reduce((s, r) => s + r.metrics.ttft_ms.mean, 0) / steady.length
    expect(more.metrics!.ttft_ms.mean).toBeCloseTo(meanTtft, 9)
  })
})
