/** Adapters against the fake engine over real loopback HTTP: info, tokenize, counters. */
import { afterEach, describe, expect, it } from 'vitest'
import { httpPorts } from '../../src/engines/http.js'
import { llamacpp } from '../../src/engines/llamacpp.js'
import { openai } from '../../src/engines/openai.js'
import { sglang } from '../../src/engines/sglang.js'
import type { EngineAdapter } from '../../src/engines/types.js'
import { vllm } from '../../src/engines/vllm.js'
import { runFake, type Dialect, type FakeEngine } from './fake.js'

const fakes: FakeEngine[] = []
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()))
})
async function fake(dialect: Dialect, args: string[] = []): Promise<FakeEngine> {
  const f = await runFake(dialect, args)
  fakes.push(f)
  return f
}

const http = httpPorts()
const SPEC = ['--spec-k', '4', '--spec-accepted', '3']

describe('info()', () => {
  it.each<[Dialect, EngineAdapter, object]>([
    [
      'vllm',
      vllm,
      { version: '0.11.0+fake', server: { models: ['fake-model'], root: '/models/fake-model', max_model_len: 8192 } },
    ],
    [
      'sglang',
      sglang,
      {
        version: '0.5.3+fake',
        server: {
          model_path: '/models/fake-model',
          served_model_name: 'fake-model',
          tp_size: 1,
          dp_size: 1,
          mem_fraction_static: 0.8,
        },
      },
    ],
    [
      'llamacpp',
      llamacpp,
      {
        version: 'b6767-fake0000',
        server: {
          model_path: '/models/fake-model.gguf',
          total_slots: 4,
          n_ctx: 8192,
          speculative: false,
          'speculative.n_max': 16,
          'speculative.n_min': 0,
          'speculative.p_min': 0.75,
        },
      },
    ],
    ['openai', openai, { server: { models: ['fake-model'], root: '/models/fake-model', max_model_len: 8192 } }],
  ])('%s: version and server facts', async (dialect, adapter, expected) => {
    const f = await fake(dialect)
    expect(await adapter.info(http, f.baseUrl)).toEqual(expected)
  })

  it('sglang: records the speculative settings when on', async () => {
    const f = await fake('sglang', SPEC)
    expect((await sglang.info(http, f.baseUrl)).server).toMatchObject({
      speculative_algorithm: 'EAGLE',
      speculative_num_steps: 4,
      speculative_num_draft_tokens: 5,
    })
  })
})

describe('tokenize()', () => {
  it.each<[Dialect, EngineAdapter]>([
    ['vllm', vllm],
    ['sglang', sglang],
    ['llamacpp', llamacpp],
  ])('%s counts prompt tokens as the server does', async (dialect, adapter) => {
    const f = await fake(dialect)
    expect(await adapter.tokenize!(http, f.baseUrl, 'fake-model', 'one two three four five')).toBe(5)
  })

  it('the generic server has no tokenizer endpoint', () => {
    expect(openai.tokenize).toBeUndefined()
  })
})

/** One generation of `tokens` tokens (non-streamed is enough to move the server's counters). */
async function generate(f: FakeEngine, tokens: number): Promise<void> {
  const answer = await http.post(
    `${f.baseUrl}/v1/completions`,
    { model: 'fake-model', prompt: 'a b c', max_tokens: tokens },
    5000,
  )
  expect(answer.status).toBe(200)
}

describe('spec-decode counters', () => {
  it('vLLM: /metrics deltas around the work give acceptance rate and length', async () => {
    const f = await fake('vllm', SPEC)
    await generate(f, 8) // moves the counters before the "cell": must not count
    const before = await vllm.counters!(http, f.baseUrl)
    // 2 requests × 8 tokens, 3 of 4 drafts accepted: 2 steps each, 6 accepted, 8 drafted.
    await generate(f, 8)
    await generate(f, 8)
    const after = await vllm.counters!(http, f.baseUrl)
    expect(vllm.specDecode!(before, after, [])).toEqual({
      acceptanceRate: 12 / 16,
      acceptanceLength: 1 + 12 / 4,
      draftTokens: 16,
      acceptedTokens: 12,
      source: 'vllm /metrics counter deltas',
    })
  })

  it('vLLM without speculative decoding has no spec counters', async () => {
    const f = await fake('vllm')
    const counters = await vllm.counters!(http, f.baseUrl)
    expect(counters).toEqual({ 'vllm:request_success_total': 0 })
    expect(vllm.specDecode!(counters, counters, [])).toBeUndefined()
  })

  it('SGLang: the cumulative average accept length from server info', async () => {
    const f = await fake('sglang', SPEC)
    await generate(f, 8)
    const after = await sglang.counters!(http, f.baseUrl)
    expect(after).toEqual({ avg_spec_accept_length: 4 })
    expect(sglang.specDecode!(undefined, after, [])?.acceptanceLength).toBe(4)
  })
})
