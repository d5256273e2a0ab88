import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { PROBE_DEFAULT_SEED, probeQuestions, solveQuestion } from '../../src/quality/probe.js'
import { sumByName } from '../../src/engines/prometheus.js'
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/index.js'
import { CHAT_TOKENS_PER_MESSAGE, CHAT_TOKENS_REPLY } from '../../src/sim/tokenizer.js'
import { profileFiles } from './profile-file.js'
import { traceLag } from '../helpers/lag-trace.js'
import { frameText, postStream, wordCount } from '../helpers/sse-client.js'

/** Profile files with round numbers, so the schedule is easy to derive. */
const profileFile = profileFiles('sim-server-')

const FLAT = profileFile('flat')
const SPEC = profileFile('spec', { speculative: { method: 'mtp', k: 3, accept: [0.25, 0.25, 0.25, 0.25] } })

async function withServer<T>(
  options: Partial<SimServerOptions>,
  fn: (base: string, server: SimServer) => Promise<T>,
): Promise<T> {
  const server = await startSimServer({ profile: FLAT, port: 0, timeScale: 20, ...options })
  try {
    return await fn(`http://127.0.0.1:${server.port}`, server)
  } finally {
    await server.close()
  }
}

const prompt = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ')

describe('streaming dialect (vLLM)', () => {
  it('chat: role-only first chunk with the first token, content chunks, finish "length", usage chunk with empty choices, [DONE]', async () => {
    await withServer({}, async (base) => {
      const body = {
        model: 'any',
        messages: [{ role: 'user', content: prompt(10) }],
        max_completion_tokens: 6,
        stream: true,
        stream_options: { include_usage: true },
      }
      const { status, frames } = await postStream(`${base}/v1/chat/completions`, body)
      expect(status).toBe(200)
      expect(frames[0].data.object).toBe('chat.completion.chunk')
      expect(frames[0].data.choices[0].delta).toEqual({ role: 'assistant', content: '' })
      // The role chunk is written together with the first token, as vLLM does after prefill.
      expect(frames[1].at - frames[0].at).toBeLessThan(15)
      const content = frames.slice(1, -2)
      expect(content.length).toBe(6)
      expect(content.every((f) => f.data.choices[0].delta.role === undefined && frameText(f).length > 0)).toBe(true)
      expect(content.map((f) => f.data.choices[0].finish_reason)).toEqual([null, null, null, null, null, 'length'])
      const usage = frames.at(-2)?.data
      expect(usage.choices).toEqual([])
      const promptTokens = 10 + CHAT_TOKENS_PER_MESSAGE + CHAT_TOKENS_REPLY
      expect(usage.usage).toEqual({ prompt_tokens: promptTokens, completion_tokens: 6, total_tokens: promptTokens + 6 })
      expect(wordCount(content.map(frameText).join(''))).toBe(6)
      expect(frames.at(-1)?.data).toBe('[DONE]')
      expect(new Set(frames.slice(0, -1).map((f) => f.data.id)).size).toBe(1)
      expect(frames[0].data.model).toBe('any')
    })
  })

  it('completions: text chunks, no usage chunk unless asked, [DONE]', async () => {
    await withServer({}, async (base) => {
      const { frames } = await postStream(`${base}/v1/completions`, { prompt: prompt(5), max_tokens: 4, stream: true })
      expect(frames.map((f) => (f.data === '[DONE]' ? 'done' : f.data.object))).toEqual([
        'text_completion',
        'text_completion',
        'text_completion',
        'text_completion',
        'done',
      ])
      expect(frames.slice(0, 4).map((f) => f.data.choices[0].finish_reason)).toEqual([null, null, null, 'length'])
      expect(frames.slice(0, 4).every((f) => f.data.usage === undefined)).toBe(true)
      expect(wordCount(frames.map(frameText).join(''))).toBe(4)
    })
  })

  it('continuous usage stats put cumulative usage on every chunk', async () => {
    await withServer({}, async (base) => {
      const body = {
        prompt: prompt(3),
        max_tokens: 3,
        stream: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      }
      const { frames } = await postStream(`${base}/v1/completions`, body)
      expect(frames.slice(0, -1).map((f) => f.data.usage.completion_tokens)).toEqual([1, 2, 3, 3])
    })
  })

  it('speculative profile: several tokens per chunk, usage counts tokens, not chunks', async () => {
    await withServer({ profile: SPEC }, async (base) => {
      const body = { prompt: prompt(3), max_tokens: 40, stream: true, stream_options: { include_usage: true } }
      const { frames } = await postStream(`${base}/v1/completions`, body)
      const perChunk = frames.slice(0, -2).map((f) => wordCount(frameText(f)))
      expect(perChunk.reduce((a, b) => a + b, 0)).toBe(40)
      expect(Math.max(...perChunk)).toBeGreaterThan(1)
      expect(Math.max(...perChunk)).toBeLessThanOrEqual(4)
      expect(frames.at(-2)?.data.usage.completion_tokens).toBe(40)
    })
  })

  it('non-streamed replies carry the whole text and usage', async () => {
    await withServer({}, async (base) => {
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
      })
      const body = (await res.json()) as any
      expect(body.object).toBe('chat.completion')
      expect(body.choices[0].message.role).toBe('assistant')
      expect(wordCount(body.choices[0].message.content)).toBe(5)
      expect(body.usage.completion_tokens).toBe(5)
    })
  })

  it('tokens arrive on the profile schedule (time scale applied)', async () => {
    // 1000 prompt words at 1000 tok/s = 1000 ms, then 20 ms steps; scale 10 → 100 ms, then 2 ms steps.
    await withServer({ timeScale: 10 }, async (base) => {
      // Server and client share this thread: how long its loop was held is how late a write or a read can be.
      const lag = traceLag()
      const { sentAt, frames } = await postStream(`${base}/v1/completions`, {
        prompt: prompt(1000),
        max_tokens: 21,
        stream: true,
      }).finally(() => lag.stop())
      const tokens = frames.slice(0, -1)
      const [firstAt, lastAt] = [tokens[0].at, tokens.at(-1)!.at]
      // Every write is due at an absolute deadline from the request (first token at 100 ms, the 21st at 140 ms).
      // Timers never fire early; a held loop delivers late, by no more than it was held since the request, plus the
      // deadline's whole-millisecond rounding and 2 ms over loopback. A late first token is caught up by the steps
      // after it rather than shifting them, so the decode window alone has no lower bound — the absolute times do.
      const late = (at: number) => lag.heldWithin(sentAt, at) + 1 + 2
      expect(firstAt - sentAt).toBeGreaterThanOrEqual(98)
      expect(firstAt - sentAt).toBeLessThan(100 + late(firstAt))
      expect(lastAt - sentAt).toBeGreaterThanOrEqual(140 - 2)
      expect(lastAt - sentAt).toBeLessThan(140 + late(lastAt))
    })
  })
})

describe('end of sequence', () => {
  const question = probeQuestions(PROBE_DEFAULT_SEED, 1)[0].text
  const finishOf = (frames: { data: any }[]) =>
    frames
      .flatMap((f) => f.data.choices ?? [])
      .map((c: { finish_reason: unknown }) => c.finish_reason)
      .filter((r) => r !== null)

  it('ignore_eos: false stops after the probe answer with finish "stop", usage counting only the tokens sent', async () => {
    await withServer({}, async (base) => {
      const body = {
        prompt: question,
        max_tokens: 32,
        stream: true,
        stream_options: { include_usage: true },
        ignore_eos: false,
        temperature: 0,
      }
      const { frames } = await postStream(`${base}/v1/completions`, body)
      const text = frames.map(frameText).join('')
      expect(text).toBe(` The answer is ${solveQuestion(question)}.`)
      expect(finishOf(frames)).toEqual(['stop'])
      expect(frames.at(-2)?.data.usage.completion_tokens).toBe(4)
    })
  })

  it('ignore_eos: false on any other prompt stops after a seeded 8–16 tokens, the same every time; ignore_eos: true runs to max_tokens', async () => {
    await withServer({}, async (base) => {
      const body = (ignoreEos: boolean) => ({
        prompt: prompt(30),
        max_tokens: 48,
        stream: true,
        stream_options: { include_usage: true },
        ignore_eos: ignoreEos,
      })
      const a = await postStream(`${base}/v1/completions`, body(false))
      const b = await postStream(`${base}/v1/completions`, body(false))
      const n = a.frames.at(-2)?.data.usage.completion_tokens
      expect(n).toBeGreaterThanOrEqual(8)
      expect(n).toBeLessThanOrEqual(16)
      expect(wordCount(a.frames.map(frameText).join(''))).toBe(n)
      expect(b.frames.map(frameText).join('')).toBe(a.frames.map(frameText).join(''))
      expect(finishOf(a.frames)).toEqual(['stop'])
      const full = await postStream(`${base}/v1/completions`, body(true))
      expect(full.frames.at(-2)?.data.usage.completion_tokens).toBe(48)
      expect(finishOf(full.frames)).toEqual(['length'])
    })
  })

  it('a non-streamed reply stops too; a max_tokens below the answer ends it at "length"', async () => {
    await withServer({}, async (base) => {
      const post = async (maxTokens: number) =>
        (
          await fetch(`${base}/v1/completions`, {
            method: 'POST',
            body: JSON.stringify({ prompt: question, max_tokens: maxTokens, ignore_eos: false }),
          })
        ).json() as Promise<{ usage: { completion_tokens: number }; choices: { finish_reason: string }[] }>
      const stopped = await post(32)
      expect(stopped.usage.completion_tokens).toBe(4)
      expect(stopped.choices[0].finish_reason).toBe('stop')
      const cut = await post(2)
      expect(cut.usage.completion_tokens).toBe(2)
      expect(cut.choices[0].finish_reason).toBe('length')
    })
  })
})

describe('other endpoints', () => {
  it('/health, /version, /v1/models', async () => {
    await withServer({}, async (base) => {
      const health = await fetch(`${base}/health`)
      expect(health.status).toBe(200)
      expect(await health.text()).toBe('')
      expect(await (await fetch(`${base}/version`)).json()).toMatchObject({
        version: expect.stringMatching(/^sim-/),
        profile: 'flat',
      })
      const models = (await (await fetch(`${base}/v1/models`)).json()) as any
      expect(models.data[0]).toMatchObject({ id: 'test/flat', root: 'test/flat', max_model_len: 262144 })
    })
  })

  it.each([
    { body: { prompt: 'one two  three\nfour' }, count: 4 },
    { body: { prompt: ['a b'] }, count: 2 },
    { body: { prompt: [5, 6, 7] }, count: 3 },
    {
      body: {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: [{ type: 'text', text: 'x y z' }] },
        ],
      },
      count: 2 + 3 + 2 * 4 + 3,
    },
  ])('/tokenize $body → $count', async ({ body, count }) => {
    await withServer({}, async (base) => {
      const res = (await (
        await fetch(`${base}/tokenize`, { method: 'POST', body: JSON.stringify(body) })
      ).json()) as any
      expect(res.count).toBe(count)
      expect(res.tokens).toHaveLength(count)
      expect(res.max_model_len).toBe(262144)
    })
  })

  it('/metrics: preemptions grow past a kv-tokens budget, and are not served without one', async () => {
    // Two 10-token prompts fit 40 KV tokens; decoding both past 40 preempts the newer one.
    const KV = profileFile('kv', { 'kv-tokens': 40 })
    const sent = [0, 1].map(() => ({ prompt: prompt(10), max_tokens: 30, stream: true }))
    await withServer({ profile: KV }, async (base) => {
      const bodies = await Promise.all(sent.map((b) => postStream(`${base}/v1/completions`, b)))
      const c = sumByName(await (await fetch(`${base}/metrics`)).text())
      expect(c['vllm:num_preemptions_total']).toBeGreaterThan(0)
      expect(c['vllm:generation_tokens_total']).toBe(60)
      // Both finished: nothing held.
      expect(c['vllm:kv_cache_usage_perc']).toBe(0)
      expect(bodies.map((b) => wordCount(b.frames.map(frameText).join('')))).toEqual([30, 30])
    })
    await withServer({}, async (base) => {
      const text = await (await fetch(`${base}/metrics`)).text()
      expect(text).not.toContain('num_preemptions')
      expect(text).not.toContain('kv_cache_usage')
      expect(text).not.toContain('sim:gpu_')
    })
  })

  it('/metrics: vLLM counters add up; spec-decode counters only with a speculative profile', async () => {
    for (const profile of [FLAT, SPEC]) {
      await withServer({ profile }, async (base) => {
        const sent = [
          { prompt: prompt(7), max_tokens: 9 },
          { prompt: prompt(4), max_tokens: 30 },
        ]
        await Promise.all(sent.map((b) => postStream(`${base}/v1/completions`, { ...b, stream: true })))
        const text = await (await fetch(`${base}/metrics`)).text()
        expect(text).toContain('# TYPE vllm:generation_tokens_total counter')
        const c = sumByName(text)
        expect(c['vllm:prompt_tokens_total']).toBe(11)
        expect(c['vllm:generation_tokens_total']).toBe(39)
        expect(c['vllm:request_success_total']).toBe(2)
        expect(c['vllm:num_requests_running']).toBe(0)
        const spec = c['vllm:spec_decode_num_drafts_total']
        if (profile === FLAT) expect(spec).toBeUndefined()
        else {
          // Every generated token is a first token, a verified token (one per draft) or an accepted draft.
          expect(2 + spec + c['vllm:spec_decode_num_accepted_tokens_total']).toBe(39)
          expect(c['vllm:spec_decode_num_draft_tokens_total']).toBe(3 * spec)
        }
        expect(/^vllm:prompt_tokens_total\{[^}]*model_name="([^"]*)"/m.exec(text)?.[1]).toBe(
          profile === FLAT ? 'test/flat' : 'test/spec',
        )
      })
    }
  })

  it.each([
    {
      path: '/v1/completions',
      body: { prompt: 'x', max_tokens: 262144 },
      status: 400,
      match: /maximum context length is 262144/,
    },
    {
      path: '/v1/completions',
      body: { prompt: 'x', max_tokens: 0 },
      status: 400,
      match: /max_tokens must be a positive integer/,
    },
    { path: '/v1/chat/completions', body: { messages: 'hi' }, status: 400, match: /messages/ },
    { path: '/v1/completions', body: '{not json', status: 400, match: /not valid JSON/ },
  ])('$path rejects $body with $status', async ({ path, body, status, match }) => {
    await withServer({}, async (base) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
      expect(res.status).toBe(status)
      const err = (await res.json()) as any
      expect(err.error.message).toMatch(match)
      expect(err.error.code).toBe(status)
    })
  })

  it('unknown paths are 404, wrong methods 405', async () => {
    await withServer({}, async (base) => {
      expect((await fetch(`${base}/nope`)).status).toBe(404)
      expect((await fetch(`${base}/v1/completions`)).status).toBe(405)
    })
  })
})

describe('lifecycle and determinism', () => {
  it('a seed fixes the generated text and the chunking; another seed changes the chunking', async () => {
    const run = (seed: number) =>
      withServer({ profile: SPEC, seed }, async (base) => {
        const { frames } = await postStream(`${base}/v1/completions`, {
          prompt: prompt(3),
          max_tokens: 60,
          stream: true,
        })
        return frames.slice(0, -1).map(frameText)
      })
    const a = await run(9)
    expect(await run(9)).toEqual(a)
    const b = await run(10)
    expect(b.join('')).toBe(a.join(''))
    expect(b.map(wordCount)).not.toEqual(a.map(wordCount))
  })

  it('--load-ms: connections are refused until the server listens', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const starting = startSimServer({ profile: FLAT, port, loadMs: 400 })
    try {
      const early = await fetch(`http://127.0.0.1:${port}/health`).then(
        () => 'answered',
        (e: any) => e.cause?.code ?? String(e),
      )
      expect(early).toBe('ECONNREFUSED')
    } finally {
      const server = await starting
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200)
      await server.close()
    }
  })

  it('a client that disconnects mid-stream is dropped from the batch', async () => {
    await withServer({ timeScale: 1 }, async (base) => {
      const abort = new AbortController()
      const read = postStream(
        `${base}/v1/completions`,
        { prompt: 'x', max_tokens: 10_000, stream: true },
        { signal: abort.signal, onFrame: () => abort.abort() },
      )
      await expect(read).rejects.toThrow()
      let c: Record<string, number> = {}
      let text = ''
      for (let i = 0; i < 50; i++) {
        text = await (await fetch(`${base}/metrics`)).text()
        c = sumByName(text)
        if (c['vllm:num_requests_running'] === 0) break
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(/^vllm:request_success_total\{[^}]*finished_reason="abort"[^}]*\} (\S+)/m.exec(text)?.[1]).toMatch(
        /^1(\.0)?$/,
      )
      expect(c['vllm:num_requests_running']).toBe(0)
      expect(c['vllm:num_requests_waiting']).toBe(0)
      expect(c['vllm:generation_tokens_total']).toBeLessThan(100)
    })
  })
})
