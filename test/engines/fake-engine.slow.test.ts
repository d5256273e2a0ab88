/**
 * The fake engine is the stand-in every end-to-end test launches, so its dialects must
 * match the engines: chunk shapes (engines.md §3–§4), readiness, failure switches, timing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { httpPorts } from '../../src/engines/http.js'
import { runFake, type Dialect, type FakeEngine } from './fake.js'
import { postStream } from '../helpers/sse-client.js'

const fakes: FakeEngine[] = []
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()))
})
async function fake(dialect: Dialect, args: string[] = [], waitFor?: string): Promise<FakeEngine> {
  const f = await runFake(dialect, args, waitFor)
  fakes.push(f)
  return f
}

const chat = (n: number, usage = true) => ({
  model: 'fake-model',
  messages: [{ role: 'user', content: 'one two three' }],
  max_tokens: n,
  stream: true,
  ...(usage ? { stream_options: { include_usage: true } } : {}),
})
const completion = (n: number, usage = true) => ({
  model: 'fake-model',
  prompt: 'one two three four',
  max_tokens: n,
  stream: true,
  ...(usage ? { stream_options: { include_usage: true } } : {}),
})

describe('llama.cpp dialect', () => {
  it('chat: role chunk with content null, usage + timings on a choices-less last chunk', async () => {
    const f = await fake('llamacpp', ['--spec-k', '4', '--spec-accepted', '1'])
    const r = await postStream(`${f.baseUrl}/v1/chat/completions`, chat(4))
    const json = r.events.map((e) => e.json!)
    expect(json[0].choices[0].delta).toEqual({ role: 'assistant', content: null })
    expect(json.slice(1, 5).map((c) => c.choices[0].delta.content)).toEqual([' w0', ' w1', ' w2', ' w3'])
    expect(json[5].choices[0]).toMatchObject({ finish_reason: 'length', delta: {} })
    expect(json[6].choices).toEqual([])
    expect(json[6].usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 })
    // 4 tokens, 2 per step: 2 steps × 4 drafted, 2 accepted
    expect(json[6].timings).toMatchObject({ predicted_n: 4, prompt_n: 3, draft_n: 8, draft_n_accepted: 2 })
    expect(r.done).toBe(true)
  })

  it('chat without include_usage: timings ride on the finish chunk, no usage', async () => {
    const f = await fake('llamacpp')
    const r = await postStream(`${f.baseUrl}/v1/chat/completions`, chat(2, false))
    const last = r.events.at(-1)!.json!
    expect(last.choices[0].finish_reason).toBe('length')
    expect(last.timings.predicted_n).toBe(2)
    expect(r.events.some((e) => e.json!.usage)).toBe(false)
  })

  it('completions: usage rides on the final chunk that still has choices, even without include_usage', async () => {
    const f = await fake('llamacpp')
    const r = await postStream(`${f.baseUrl}/v1/completions`, completion(3, false))
    const last = r.events.at(-1)!.json!
    expect(last.choices).toEqual([{ finish_reason: 'length', index: 0, text: '', logprobs: null }])
    expect(last.usage).toEqual({ prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 })
    expect(last.timings.predicted_n).toBe(3)
  })

  it('answers 503 Loading model on every endpoint while loading', async () => {
    const f = await fake('llamacpp', ['--never-ready'], 'listening on')
    const ports = httpPorts()
    for (const path of ['/health', '/v1/models', '/props']) {
      const a = await ports.get(f.baseUrl + path, 1000)
      expect(a.status).toBe(503)
      expect(JSON.parse(a.body).error.message).toBe('Loading model')
    }
  }, 15_000)
})

describe('SGLang dialect', () => {
  it('every chunk carries usage: null and matched_stop; finish on an empty chunk; usage chunk last', async () => {
    const f = await fake('sglang')
    const r = await postStream(`${f.baseUrl}/v1/chat/completions`, chat(2))
    const json = r.events.map((e) => e.json!)
    expect(json[0].choices[0].delta).toEqual({
      role: 'assistant',
      content: '',
      reasoning_content: null,
      tool_calls: null,
    })
    expect(json[1].choices[0]).toMatchObject({ delta: { role: null, content: ' w0' }, matched_stop: null })
    expect(json.slice(0, -1).every((c) => c.usage === null)).toBe(true)
    expect(json.at(-2)!.choices[0]).toMatchObject({ finish_reason: 'length', delta: { content: null } })
    expect(json.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 2, prompt_tokens: 3 } })
    expect(r.done).toBe(true)
  })
})

describe('vLLM dialect', () => {
  it('chat: role chunk with empty content in the same write as the first token; usage chunk has no choices', async () => {
    const f = await fake('vllm', ['--ttft-ms', '30'])
    const r = await postStream(`${f.baseUrl}/v1/chat/completions`, chat(3))
    expect(r.events[0].json!.choices[0].delta).toEqual({ role: 'assistant', content: '' })
    expect(r.events[1].json!.choices[0].delta).toEqual({ content: ' w0' })
    expect(r.events[1].at).toBe(r.events[0].at)
    expect(r.events[3].json!.choices[0].finish_reason).toBe('length')
    expect(r.events[4].json).toMatchObject({ choices: [], usage: { completion_tokens: 3 } })
  })

  it('does not listen while loading (connection refused), then serves /health', async () => {
    const { pickFreePort } = await import('../../src/server/ports.js')
    const port = await pickFreePort()
    const { spawn } = await import('node:child_process')
    const { FAKE_ENGINE } = await import('./fake.js')
    const child = spawn(
      process.execPath,
      [FAKE_ENGINE, '--dialect', 'vllm', '--port', String(port), '--load-ms', '800'],
      { stdio: 'ignore' },
    )
    try {
      const ports = httpPorts()
      const seen: number[] = []
      const deadline = Date.now() + 8000
      while (Date.now() < deadline) {
        const a = await ports.get(`http://127.0.0.1:${port}/health`, 500)
        if (seen.at(-1) !== a.status) seen.push(a.status)
        if (a.status === 200) break
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(seen).toEqual([0, 200])
    } finally {
      child.kill('SIGKILL')
    }
  }, 15_000)
})

describe('schedule and failure switches', () => {
  it('first token after --ttft-ms, then a chunk every --itl-ms, --tokens-per-chunk tokens each', async () => {
    const f = await fake('openai', ['--ttft-ms', '120', '--itl-ms', '40', '--tokens-per-chunk', '3'])
    const r = await postStream(`${f.baseUrl}/v1/completions`, completion(8))
    const tokens = r.events.filter((e) => e.json!.choices.length && e.json!.choices[0].text)
    expect(tokens.map((e) => e.json!.choices[0].text)).toEqual([' w0 w1 w2', ' w3 w4 w5', ' w6 w7'])
    // Scheduled at 120, 160, 200 ms after the server got the request (which is after our send):
    // a chunk can be late on a loaded box, never early. Upper bound loose for the same reason.
    const after = tokens.map((e) => e.at - r.sentAt)
    expect(after[0]).toBeGreaterThanOrEqual(118)
    expect(after[1]).toBeGreaterThanOrEqual(158)
    expect(after[2]).toBeGreaterThanOrEqual(198)
    expect(after[2]).toBeLessThan(2000)
  })

  it('--fail-every 2 fails every second request with HTTP 500', async () => {
    const f = await fake('vllm', ['--fail-every', '2'])
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await postStream(`${f.baseUrl}/v1/completions`, completion(2))).status)
    expect(statuses).toEqual([200, 500, 200, 500])
  })

  it('--cut-every 1 cuts the stream half-way, without [DONE]', async () => {
    const f = await fake('sglang', ['--cut-every', '1'])
    const r = await postStream(`${f.baseUrl}/v1/completions`, completion(6))
    expect(r.cut).toBe(true)
    expect(r.done).toBe(false)
    expect(r.events.length).toBe(3)
  })

  it('--cut-every 1 still sends the first half when every token is already due (--itl-ms 0, or a late wake-up)', async () => {
    const f = await fake('sglang', ['--cut-every', '1', '--itl-ms', '0'])
    const r = await postStream(`${f.baseUrl}/v1/completions`, completion(6))
    expect(r.cut).toBe(true)
    expect(r.events.length).toBe(3)
  })

  it('records the last generation request for end-to-end assertions', async () => {
    const f = await fake('llamacpp')
    await postStream(`${f.baseUrl}/v1/completions`, { ...completion(1), cache_prompt: false, temperature: 0 })
    const last = JSON.parse((await httpPorts().get(`${f.baseUrl}/fake/last-request`, 1000)).body)
    expect(last).toMatchObject({ cache_prompt: false, temperature: 0, max_tokens: 1 })
  })
})
