/**
 * The trtllm adapter against a loopback stand-in for `trtllm-serve`: the port opens only once
 * "loaded", /health is 200 until a fatal error (then 503), and the OpenAI endpoints refuse
 * unknown request fields with a 400 as its pydantic models (extra="forbid") do.
 */
import http from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient } from '../../src/bench/measure.js'
import { httpPorts } from '../../src/engines/http.js'
import { trtllm } from '../../src/engines/trtllm.js'
import type { ProbeAnswer, Readiness } from '../../src/engines/types.js'
import { vllm } from '../../src/engines/vllm.js'
import { pickFreePort } from '../../src/server/ports.js'

/** The request fields the stand-in declares; `max_tokens` is the chat alias of `max_completion_tokens`. */
const DECLARED = {
  '/v1/completions': ['model', 'prompt', 'max_tokens', 'stream', 'stream_options', 'ignore_eos', 'temperature'],
  '/v1/chat/completions': [
    'model',
    'messages',
    'max_completion_tokens',
    'stream',
    'stream_options',
    'ignore_eos',
    'temperature',
  ],
} as const
type Endpoint = keyof typeof DECLARED

interface Options {
  /** Builds before /_internal/tokenize and /server_info answer 404. */
  old?: boolean
}

interface Fake {
  base: string
  /** Paths requested, in order. */
  seen: string[]
  /** From now on /health reports a fatal executor error. */
  fail(): void
  /** Starts listening: the model has "loaded". */
  listen(): Promise<void>
}

const servers: http.Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))

/** The field names pydantic would refuse, with `max_tokens` counted as the chat field it aliases. */
function unknownFields(path: Endpoint, body: Record<string, unknown>): string[] {
  const keys = Object.keys(body).map((k) =>
    path === '/v1/chat/completions' && k === 'max_tokens' ? 'max_completion_tokens' : k,
  )
  const extra = keys.filter((k) => !(DECLARED[path] as readonly string[]).includes(k))
  return keys.filter((k, i) => keys.indexOf(k) !== i).concat(extra)
}

function stream(res: http.ServerResponse, path: Endpoint, body: Record<string, unknown>): void {
  const chat = path === '/v1/chat/completions'
  const text = chat ? String((body.messages as { content: string }[])[0].content) : String(body.prompt)
  const tokens = Number(body.max_tokens ?? body.max_completion_tokens)
  const chunk = (choice: object) =>
    `data: ${JSON.stringify({ id: 'x', object: chat ? 'chat.completion.chunk' : 'text_completion', model: 'm', choices: [choice] })}\n\n`
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  if (chat) res.write(chunk({ index: 0, delta: { role: 'assistant', content: '' } }))
  for (let i = 0; i < tokens; i++)
    res.write(chunk(chat ? { index: 0, delta: { content: ` t${i}` } } : { index: 0, text: ` t${i}` }))
  const usage = { prompt_tokens: text.split(/\s+/).length, completion_tokens: tokens, total_tokens: 0 }
  res.end(`data: ${JSON.stringify({ id: 'x', model: 'm', choices: [], usage })}\n\ndata: [DONE]\n\n`)
}

async function fakeTrtllm(options: Options = {}): Promise<Fake> {
  const port = await pickFreePort()
  const seen: string[] = []
  let fatal = false
  const server = http.createServer((req, res) => {
    const path = req.url ?? ''
    seen.push(path)
    let raw = ''
    req.on('data', (c: Buffer) => (raw += c.toString()))
    req.on('end', () => {
      if (path === '/health')
        return fatal
          ? res.writeHead(503).end('LLM is unavailable. Please check the server logs for more details.')
          : res.writeHead(200).end()
      if (path === '/version') return json(res, 200, { version: '1.2.0rc1' })
      if (path === '/v1/models')
        return json(res, 200, {
          object: 'list',
          data: [{ id: 'Qwen3-8B', object: 'model', created: 0, owned_by: 'tensorrt_llm' }],
        })
      if (path === '/server_info' && !options.old)
        return json(res, 200, {
          disaggregated_params: null,
          max_batch_size: 64,
          tokens_per_block: 32,
          kv_cache_hash_algo: 'x',
        })
      if (path === '/_internal/tokenize' && !options.old) {
        const prompt = String((JSON.parse(raw) as { prompt: string }).prompt)
        return json(res, 200, { count: prompt.split(/\s+/).length, tokens: [] })
      }
      if (path in DECLARED) {
        const body = JSON.parse(raw) as Record<string, unknown>
        const refused = unknownFields(path as Endpoint, body)
        if (refused.length)
          return json(res, 400, { error: `1 validation error: ${refused[0]}: Extra inputs are not permitted` })
        return stream(res, path as Endpoint, body)
      }
      json(res, 404, { detail: 'Not Found' })
    })
  })
  servers.push(server)
  return {
    base: `http://127.0.0.1:${port}`,
    seen,
    fail: () => (fatal = true),
    listen: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
  }
}

async function started(options: Options = {}): Promise<Fake> {
  const fake = await fakeTrtllm(options)
  await fake.listen()
  return fake
}

const ports = httpPorts()

describe('trtllm readiness', () => {
  it.each<[string, ProbeAnswer, Readiness]>([
    ['refused while the model loads', { status: 0, body: 'connection refused' }, 'loading'],
    ['200 once serving', { status: 200, body: '' }, 'ready'],
    [
      '503 after a fatal executor error is not ready',
      { status: 503, body: 'LLM is unavailable. Please check the server logs for more details.' },
      'loading',
    ],
    ['an unexpected 404 keeps waiting', { status: 404, body: '' }, 'loading'],
  ])('%s → %s', (_name, answer, expected) => {
    expect(trtllm.readiness(answer)).toBe(expected)
  })

  it('polls /health: refused, then ready once listening, then not ready after a fatal error', async () => {
    const fake = await fakeTrtllm()
    const probe = async () => trtllm.readiness(await ports.get(fake.base + trtllm.healthPath, 1000))
    expect(trtllm.healthPath).toBe('/health')
    expect(await probe()).toBe('loading')
    await fake.listen()
    expect(await probe()).toBe('ready')
    fake.fail()
    expect(await probe()).toBe('loading')
  })
})

describe('trtllm info', () => {
  it('version from /version, the served model, and the server_info limits', async () => {
    const fake = await started()
    expect(await trtllm.info(ports, fake.base)).toEqual({
      version: '1.2.0rc1',
      server: { models: ['Qwen3-8B'], max_batch_size: 64, tokens_per_block: 32 },
    })
  })

  it('an older build without /server_info still gives version and model', async () => {
    const fake = await started({ old: true })
    expect(await trtllm.info(ports, fake.base)).toEqual({ version: '1.2.0rc1', server: { models: ['Qwen3-8B'] } })
  })

  it('nothing from a refused port, and no throw', async () => {
    const fake = await fakeTrtllm()
    await expect(trtllm.info(ports, fake.base)).resolves.toEqual({})
  })

  it('tokenizes through /_internal/tokenize, and gives undefined where the build has none', async () => {
    const fresh = await started()
    expect(await trtllm.tokenize?.(ports, fresh.base, 'Qwen3-8B', 'one two three four five')).toBe(5)
    expect(fresh.seen).toEqual(['/_internal/tokenize'])
    const old = await started({ old: true })
    expect(await trtllm.tokenize?.(ports, old.base, 'Qwen3-8B', 'one two three')).toBeUndefined()
  })

  it('reads no counters and claims no spec-decode acceptance (its /metrics is drained JSON)', () => {
    expect(trtllm.counters).toBeUndefined()
    expect(trtllm.specDecode).toBeUndefined()
  })
})

describe('trtllm requests', () => {
  const common = {
    model: 'm',
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 8,
    ignore_eos: true,
    temperature: 0,
  }

  it('chat keeps max_tokens only (the alias of max_completion_tokens); completions pass as they are', () => {
    const chat = { ...common, messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 8 }
    expect(trtllm.transformRequest(chat, 'chat')).toEqual({ ...common, messages: [{ role: 'user', content: 'hi' }] })
    expect(chat.max_completion_tokens).toBe(8)
    const completion = { ...common, prompt: 'hi' }
    const out = trtllm.transformRequest(completion, 'completions')
    expect(out).toEqual(completion)
    expect(out).not.toBe(completion)
    expect([trtllm.path('completions'), trtllm.path('chat')]).toEqual(['/v1/completions', '/v1/chat/completions'])
  })

  it.each(['completions', 'chat'] as const)(
    '%s: the bench client streams through the adapter where both token limits would be refused',
    async (api) => {
      const fake = await started()
      const client = createBenchClient({
        baseUrl: fake.base,
        adapter: trtllm,
        model: undefined,
        api,
        requestTimeoutMs: 5_000,
        maxConcurrency: 1,
      })
      const plain = createBenchClient({
        baseUrl: fake.base,
        adapter: vllm,
        model: 'Qwen3-8B',
        api,
        requestTimeoutMs: 5_000,
        maxConcurrency: 1,
      })
      try {
        await client.smoke()
        const scenario = { id: 's', inputTokens: 24, outputTokens: 4, concurrency: 1, requests: 2 }
        const cell = await client.measure({ scenario, rounds: 1, discard: 0, maxErrorShare: 0, seed: 1 })
        expect(cell.errors).toEqual([])
        expect(cell.requests.map((r) => [r.ok, r.promptTokens, r.outputTokens])).toEqual([
          [true, 24, 4],
          [true, 24, 4],
        ])
        expect(fake.seen).toContain('/_internal/tokenize')
        // The same body with both limits, as an engine without the quirk sends it: refused on chat only.
        const refused = plain.smoke().then(
          () => undefined,
          (error: Error) => error.message,
        )
        expect(await refused).toBe(
          api === 'chat'
            ? 'HTTP 400: {"error":"1 validation error: max_completion_tokens: Extra inputs are not permitted"}'
            : undefined,
        )
      } finally {
        await Promise.all([client.close(), plain.close()])
      }
    },
  )
})
