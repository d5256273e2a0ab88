import { describe, expect, it } from 'vitest'
import type { RequestRecord } from '../../src/core/measurements.js'
import { httpPorts } from '../../src/engines/http.js'
import { llamacpp } from '../../src/engines/llamacpp.js'
import { openai } from '../../src/engines/openai.js'
import { VLLM_DRAFT_COUNTERS } from '../../src/engines/prometheus.js'
import { sglang } from '../../src/engines/sglang.js'
import type { EngineAdapter, HttpPorts, ProbeAnswer, Readiness } from '../../src/engines/types.js'
import { vllm } from '../../src/engines/vllm.js'
import { pickFreePort } from '../../src/server/ports.js'

const REFUSED: ProbeAnswer = { status: 0, body: 'connection refused' }
const LOADING_LLAMA: ProbeAnswer = {
  status: 503,
  body: '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}',
}
const answer = (status: number, body = ''): ProbeAnswer => ({ status, body })

const named = (...adapters: EngineAdapter[]) => adapters.map((a) => [a.name, a] as const)

describe('readiness', () => {
  it.each<[string, EngineAdapter, ProbeAnswer, Readiness]>([
    ['vllm: refused while loading', vllm, REFUSED, 'loading'],
    ['vllm: 200 when up', vllm, answer(200), 'ready'],
    ['vllm: 503 is not ready (loading behind a proxy, or dead: only the exit tells)', vllm, answer(503), 'loading'],
    ['vllm: an unexpected 404 keeps waiting', vllm, answer(404), 'loading'],
    ['sglang: refused before HTTP is up', sglang, REFUSED, 'loading'],
    ['sglang: 503 while loading', sglang, answer(503), 'loading'],
    ['sglang: 200 when ready', sglang, answer(200), 'ready'],
    ['llamacpp: 503 Loading model', llamacpp, LOADING_LLAMA, 'loading'],
    ['llamacpp: refused', llamacpp, REFUSED, 'loading'],
    ['llamacpp: 200 ok', llamacpp, answer(200, '{"status":"ok"}'), 'ready'],
    ['openai: refused', openai, REFUSED, 'loading'],
    ['openai: 503 on /v1/models', openai, answer(503), 'loading'],
    ['openai: /v1/models 200', openai, answer(200, '{"data":[]}'), 'ready'],
  ])('%s', (_name, adapter, probe, expected) => {
    expect(adapter.readiness(probe)).toBe(expected)
  })

  it.each([
    ['vllm', vllm, '/health'],
    ['sglang', sglang, '/health'],
    ['llamacpp', llamacpp, '/health'],
    ['openai', openai, '/v1/models'],
  ] as const)('%s polls %s', (_name, adapter, path) => {
    expect(adapter.healthPath).toBe(path)
  })
})

describe('requests', () => {
  const common = {
    model: 'm',
    prompt: 'p',
    max_tokens: 8,
    stream: true,
    stream_options: { include_usage: true },
    ignore_eos: true,
    temperature: 0,
  }

  it('llama.cpp adds greedy sampling and no prompt cache, keeping the common fields', () => {
    const input = { ...common, temperature: 0.7 }
    const out = llamacpp.transformRequest(input, 'completions')
    expect(out).toEqual({ ...common, temperature: 0, cache_prompt: false })
    expect(input).toEqual({ ...common, temperature: 0.7 })
  })

  it.each(named(vllm, sglang, openai))('%s adds nothing and returns a copy', (_name, adapter) => {
    const input = { ...common }
    const out = adapter.transformRequest(input, 'chat')
    expect(out).toEqual(common)
    expect(out).not.toBe(input)
  })

  it.each(named(vllm, sglang, llamacpp, openai))('%s streams from the OpenAI paths', (_name, adapter) => {
    expect([adapter.path('completions'), adapter.path('chat')]).toEqual(['/v1/completions', '/v1/chat/completions'])
  })
})

describe('spec decode', () => {
  const counters = (drafts: number, draftTokens: number, accepted: number) => ({
    [VLLM_DRAFT_COUNTERS.drafts]: drafts,
    [VLLM_DRAFT_COUNTERS.draftTokens]: draftTokens,
    [VLLM_DRAFT_COUNTERS.accepted]: accepted,
  })

  it('vLLM: from counter deltas around the cell', () => {
    expect(vllm.specDecode!(counters(100, 400, 200), counters(300, 1200, 800), [])).toEqual({
      acceptanceRate: 600 / 800,
      acceptanceLength: 1 + 600 / 200,
      draftTokens: 800,
      acceptedTokens: 600,
      source: 'vllm /metrics counter deltas',
    })
  })

  it('vLLM: nothing without a reading before the cell (the deltas would span the whole server life)', () => {
    expect(vllm.specDecode!(undefined, counters(300, 1200, 800), [])).toBeUndefined()
  })

  const record = (ok: boolean, drafted?: number, accepted?: number): RequestRecord => ({
    index: 0,
    ok,
    queueMs: 0,
    sentAt: 0,
    ttftMs: 10,
    e2eMs: 100,
    promptTokens: 10,
    outputTokens: 20,
    usageReported: true,
    itlMs: [],
    chunks: 20,
    ...(drafted === undefined ? {} : { extras: { draft_n: drafted, draft_n_accepted: accepted ?? 0 } }),
  })

  it('llama.cpp: reads its draft counters from the timings of a stream event', () => {
    expect(
      llamacpp.streamExtras?.({ choices: [], timings: { predicted_n: 10, draft_n: 12, draft_n_accepted: 9 } }),
    ).toEqual({ draft_n: 12, draft_n_accepted: 9 })
    expect(llamacpp.streamExtras?.({ choices: [], timings: { predicted_n: 10 } })).toBeUndefined()
    expect(llamacpp.streamExtras?.({ choices: [{ text: 'x' }] })).toBeUndefined()
  })

  it('llama.cpp: sums timings.draft_n / draft_n_accepted over the successful requests', () => {
    const stats = llamacpp.specDecode!(undefined, undefined, [
      record(true, 604, 515),
      record(true, 100, 50),
      record(false, 999, 0),
      record(true),
    ])
    expect(stats).toEqual({
      acceptanceRate: 565 / 704,
      draftTokens: 704,
      acceptedTokens: 565,
      source: expect.stringContaining('draft_n'),
    })
  })

  it('llama.cpp: nothing when no request drafted', () => {
    expect(llamacpp.specDecode!(undefined, undefined, [record(true), record(true, 0, 0)])).toBeUndefined()
  })

  it('SGLang: reports the server average and says it is cumulative', () => {
    const stats = sglang.specDecode!({ avg_spec_accept_length: 3.1 }, { avg_spec_accept_length: 3.4 }, [])
    expect(stats).toEqual({ acceptanceLength: 3.4, source: expect.stringContaining('cumulative since server start') })
    expect(sglang.specDecode!(undefined, undefined, [])).toBeUndefined()
  })
})

/** An HttpPorts answering from a table; unknown URLs are refused. */
function tablePorts(table: Record<string, ProbeAnswer>): HttpPorts & { calls: string[] } {
  const calls: string[] = []
  const lookup = async (url: string) => {
    calls.push(url)
    return table[url] ?? REFUSED
  }
  return { calls, get: lookup, post: lookup }
}

describe('SGLang server info', () => {
  const info = {
    version: '0.5.3',
    model_path: '/m',
    tp_size: 2,
    speculative_algorithm: 'EAGLE',
    ignored: 1,
    internal_states: [{ avg_spec_accept_length: 2.9 }],
  }

  it('falls back to /server_info when /get_server_info is gone', async () => {
    const ports = tablePorts({
      'http://h:1/get_server_info': answer(404, '{"detail":"Not Found"}'),
      'http://h:1/server_info': answer(200, JSON.stringify(info)),
    })
    expect(await sglang.info(ports, 'http://h:1')).toEqual({
      version: '0.5.3',
      server: { model_path: '/m', tp_size: 2, speculative_algorithm: 'EAGLE' },
    })
    expect(await sglang.counters!(ports, 'http://h:1')).toEqual({ avg_spec_accept_length: 2.9 })
  })

  it('reads the decode server under prefill/decode disaggregation', async () => {
    const pd = { version: '0.5.3', decode: [{ internal_states: [{ avg_spec_accept_length: 3.7 }] }] }
    const ports = tablePorts({ 'http://h:1/get_server_info': answer(200, JSON.stringify(pd)) })
    expect(await sglang.counters!(ports, 'http://h:1')).toEqual({ avg_spec_accept_length: 3.7 })
  })

  it('has no counters without speculative decoding', async () => {
    const ports = tablePorts({
      'http://h:1/get_server_info': answer(200, JSON.stringify({ internal_states: [{ last_gen_throughput: 3 }] })),
    })
    expect(await sglang.counters!(ports, 'http://h:1')).toBeUndefined()
  })
})

describe('info() never throws', () => {
  const throwing: HttpPorts = {
    get: () => Promise.reject(new Error('boom')),
    post: () => Promise.reject(new Error('boom')),
  }

  it.each(named(vllm, sglang, llamacpp, openai))('%s: a port that throws gives {}', async (_name, adapter) => {
    await expect(adapter.info(throwing, 'http://h:1')).resolves.toEqual({})
  })

  it.each(named(vllm, sglang, llamacpp, openai))('%s: a refused port gives {}', async (_name, adapter) => {
    const port = await pickFreePort()
    await expect(adapter.info(httpPorts(), `http://127.0.0.1:${port}`)).resolves.toEqual({})
  })

  it('tokenize and counters give undefined instead of throwing', async () => {
    for (const adapter of [vllm, sglang, llamacpp]) {
      await expect(adapter.tokenize!(throwing, 'http://h:1', 'm', 'a b')).resolves.toBeUndefined()
      await expect((adapter.counters ?? (async () => undefined))(throwing, 'http://h:1')).resolves.toBeUndefined()
    }
  })
})
