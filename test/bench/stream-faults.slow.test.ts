/** One request against misbehaving streams: every failure is a RequestError with the right kind. */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Agent } from 'undici'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/bench/stream/agent.js'
import { toRecord } from '../../src/bench/stream/record.js'
import { sendStreamed } from '../../src/bench/stream/request.js'
import { timedInLoop } from '../helpers/lag-trace.js'
import { startReplayServer, type ReplayOptions } from '../helpers/replay-server.js'
import { startScheduledServer } from '../../harness/scheduled-server.js'

const token = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, text }] })}\n\n`
const usage = (prompt: number, completion: number) =>
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion } })}\n\n`

let agent: Agent | undefined
const getAgent = () => (agent ??= createAgent({ connections: 4, requestTimeoutMs: 5_000 }))
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})
afterAll(async () => {
  await agent?.destroy()
})

async function replay(options: ReplayOptions, timeoutMs = 5_000, signal?: AbortSignal) {
  const server = await startReplayServer(options)
  closers.push(() => server.close())
  const outcome = await sendStreamed(getAgent(), {
    url: new URL(`${server.url}/v1/completions`),
    body: '{}',
    timeoutMs,
    signal,
  })
  return { outcome, record: toRecord({ index: 0, queueMs: 0, expectedPromptTokens: 0 }, outcome) }
}

async function scheduled(faults: Parameters<typeof startScheduledServer>[0], timeoutMs = 5_000) {
  const server = await startScheduledServer(faults)
  closers.push(() => server.close())
  const body = JSON.stringify({ prompt: 'a b c', max_tokens: 8, stream: true })
  const timed = await timedInLoop(() =>
    sendStreamed(getAgent(), { url: new URL(`${server.url}/v1/completions`), body, timeoutMs }),
  )
  return { outcome: timed.value, elapsed: timed.elapsed, bound: timed.bound }
}

describe('stream framing', () => {
  it('reassembles an event whose multi-byte characters straddle reads', async () => {
    const body = token(' héllo') + token(' wörld 😀') + usage(3, 2) + 'data: [DONE]\n\n'
    const { record } = await replay({ body, writes: { mode: 'bytes', size: 5 }, delayMs: 1 })
    expect(record).toMatchObject({ ok: true, chunks: 2, outputTokens: 2, promptTokens: 3 })
  })

  it('skips `: keep-alive` comments and unknown `event:` types without counting them as events', async () => {
    const body =
      ': ping\n\n' + token(' a') + ': ping\n\n' + 'event: message\n' + token(' b') + usage(3, 2) + 'data: [DONE]\n\n'
    const { record } = await replay({ body, writes: { mode: 'event' } })
    expect(record).toMatchObject({ ok: true, chunks: 2, outputTokens: 2, ttftEvent: 0 })
  })

  it('ends on plain EOF without [DONE] and flushes an unterminated last event', async () => {
    const body =
      token(' a') +
      token(' b') +
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })}`
    const { outcome, record } = await replay({ body })
    expect(outcome.tally.done).toBe(false)
    expect(record).toMatchObject({ ok: true, chunks: 2, outputTokens: 2, promptTokens: 3, usageReported: true })
  })

  it('an unterminated malformed last event still fails the request', async () => {
    const { outcome } = await replay({ body: token(' a') + 'data: {"choices": [' })
    expect(outcome.error?.kind).toBe('malformed')
  })

  it('counts token-bearing events when the server sends no usage', async () => {
    const { record } = await replay({ body: token(' a b c') + token(' d') + 'data: [DONE]\n\n' })
    expect(record).toMatchObject({ ok: true, chunks: 2, outputTokens: 2, usageReported: false })
  })
})

describe('request failures', () => {
  it('malformed JSON in one event fails the request and abandons the stream', async () => {
    const body = token(' a') + 'data: {"choices": [\n\n' + token(' b') + usage(3, 2) + 'data: [DONE]\n\n'
    const { outcome, record } = await replay({ body, writes: { mode: 'event' }, delayMs: 5 })
    expect(outcome.error?.kind).toBe('malformed')
    expect(record.error).toBe('malformed event: {"choices": [')
    expect(record.ok).toBe(false)
    expect(record.chunks).toBe(1)
  })

  it.each([
    ['data: {"error": …}', `data: ${JSON.stringify({ error: { message: 'engine overloaded', code: 503 } })}\n\n`],
    ['event: error', `event: error\ndata: ${JSON.stringify({ message: 'engine overloaded' })}\n\n`],
    ['error: line', `error: ${JSON.stringify({ code: 500, message: 'engine overloaded', type: 'server_error' })}\n\n`],
  ])('an in-band %s after a token', async (_name, error) => {
    const { outcome, record } = await replay({
      body: token(' a') + error + 'data: [DONE]\n\n',
      writes: { mode: 'split' },
      delayMs: 2,
    })
    expect(outcome.error?.kind).toBe('stream-error')
    expect(record.error).toBe('stream error: engine overloaded')
  })

  it('a non-200 reply carries the status and a bounded excerpt of the body', async () => {
    const body = JSON.stringify({ error: { message: 'model not found', detail: 'x'.repeat(100_000) } })
    const { outcome } = await replay({ body, status: 404, contentType: 'application/json' })
    expect(outcome.error?.kind).toBe('http')
    expect(outcome.error?.status).toBe(404)
    expect(outcome.error?.message).toMatch(/^HTTP 404: \{"error":\{"message":"model not found"/)
    expect(outcome.error!.message.length).toBeLessThanOrEqual(220)
  })

  it('a 500 with an empty body says so', async () => {
    const { outcome } = await replay({ body: '', status: 500 })
    expect(outcome.error?.message).toBe('HTTP 500: (empty body)')
  })

  it('a stream that ends with no token is an error', async () => {
    const { outcome } = await replay({ body: usage(3, 0) + 'data: [DONE]\n\n' })
    expect(outcome.error?.kind).toBe('malformed')
    expect(outcome.error?.message).toBe('stream ended without a token')
  })

  it('a connection cut mid-stream', async () => {
    const { outcome } = await scheduled({ ttftMs: 10, intervalMs: 5, faults: { cutEvery: 1, cutAfterChunks: 3 } })
    expect(outcome.error?.kind).toBe('cut')
    expect(outcome.tally.chunks).toBe(3)
  })

  it('a 500 from the scheduled server', async () => {
    const { outcome } = await scheduled({ faults: { httpErrorEvery: 1 } })
    expect(outcome.error).toMatchObject({ kind: 'http', status: 500 })
    expect(outcome.error?.message).toContain('injected failure')
  })

  it('no token within the request timeout, keep-alive comments notwithstanding', async () => {
    const { outcome, elapsed, bound } = await scheduled({ faults: { stallEvery: 1 } }, 300)
    expect(outcome.error?.kind).toBe('timeout')
    expect(outcome.error?.message).toBe('timeout: no token within 300ms')
    expect(elapsed).toBeGreaterThanOrEqual(299)
    expect(elapsed).toBeLessThanOrEqual(bound(300))
  })

  it('a stall after the first token times out too', async () => {
    const { outcome } = await replay(
      { body: token(' a') + token(' b') + 'data: [DONE]\n\n', writes: { mode: 'event' }, delayMs: 400 },
      250,
    )
    expect(outcome.error?.kind).toBe('timeout')
  })

  it('a refused connection', async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const outcome = await sendStreamed(getAgent(), {
      url: new URL(`http://127.0.0.1:${port}/v1/completions`),
      body: '{}',
      timeoutMs: 2_000,
    })
    expect(outcome.error?.kind).toBe('network')
    expect(outcome.error?.message).toContain('ECONNREFUSED')
  })

  it('the caller aborting', async () => {
    const abort = new AbortController()
    setTimeout(() => abort.abort(), 50)
    const { outcome } = await replay(
      { body: token(' a') + token(' b'), writes: { mode: 'event' }, delayMs: 30 },
      5_000,
      abort.signal,
    )
    expect(outcome.error?.kind).toBe('aborted')
  })
})
