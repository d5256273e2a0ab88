import { describe, expect, it } from 'vitest'
import type { EngineAdapter, HttpPorts, ProbeAnswer } from '../../src/engines/types.js'
import { vllm } from '../../src/engines/vllm.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { formatDuration } from '../../src/core/format.js'
import { describeAnswer, exitSignal, race, waitReady } from '../../src/server/readiness.js'

describe('formatDuration', () => {
  it.each([
    [250, '250ms'],
    [497.43, '497ms'],
    [4000, '4s'],
    [1500, '1.5s'],
    [45_000, '45s'],
    [90_000, '1m30s'],
    [20 * 60_000, '20m'],
    [3_900_000, '1h5m'],
  ])('%d → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })
})

describe('describeAnswer', () => {
  it.each<[ProbeAnswer | undefined, string]>([
    [undefined, 'no answer yet'],
    [{ status: 0, body: 'connection refused' }, 'connection refused'],
    [{ status: 503, body: '' }, 'HTTP 503'],
    [
      { status: 503, body: '{"error":\n  {"message":"Loading model"}}' },
      'HTTP 503: {"error": {"message":"Loading model"}}',
    ],
  ])('%o → %s', (answer, text) => {
    expect(describeAnswer(answer)).toBe(text)
  })
})

describe('race', () => {
  const never = () => new Promise<number>(() => undefined)

  it.each([
    ['value', () => Promise.resolve(1), undefined, undefined, { value: 1 }],
    ['error', () => Promise.reject(new Error('x')), undefined, undefined, { error: new Error('x') }],
    ['exit', never, AbortSignal.abort({ code: 3, signal: null }), undefined, { exit: { code: 3, signal: null } }],
    ['abort', never, undefined, AbortSignal.abort(), { aborted: true }],
    ['timeout', never, new AbortController().signal, new AbortController().signal, { timeout: true }],
  ])('settles with the %s', async (_name, promise, exit, signal, expected) => {
    expect(await race(promise(), 20, exit, signal)).toEqual(expected)
  })

  it('exitSignal carries the exit info', async () => {
    const signal = exitSignal(Promise.resolve({ code: null, signal: 'SIGKILL' }))
    await new Promise((r) => setTimeout(r, 0))
    expect(signal.aborted).toBe(true)
    expect(signal.reason).toEqual({ code: null, signal: 'SIGKILL' })
  })
})

/** Answers a scripted sequence of statuses, the last one repeating. */
function scripted(statuses: number[]): HttpPorts {
  let i = 0
  const get = async (): Promise<ProbeAnswer> => ({ status: statuses[Math.min(i++, statuses.length - 1)], body: '' })
  return { get, post: get }
}

const base = { id: 't', baseUrl: 'http://h:1', log: memoryLogger(), pollMs: 5 }

describe('waitReady', () => {
  it('classifies each answer with the adapter until ready', async () => {
    expect(await waitReady({ ...base, adapter: vllm, http: scripted([0, 0, 0, 200]), timeoutMs: 5000 })).toMatchObject({
      kind: 'ready',
    })
  })

  it.each([
    ['503', [0, 503, 503, 503, 200]],
    ['502 from a proxy', [502, 502, 200]],
    ['404 then 500', [404, 500, 500, 200]],
  ])('before the first ready answer, %s means still loading, for vLLM too', async (_name, statuses) => {
    expect(await waitReady({ ...base, adapter: vllm, http: scripted(statuses), timeoutMs: 5000 })).toMatchObject({
      kind: 'ready',
    })
  })

  it('a 503 that never turns into 200 waits for the timeout, never ends as dead', async () => {
    expect(await waitReady({ ...base, adapter: vllm, http: scripted([503]), timeoutMs: 100 })).toMatchObject({
      kind: 'timeout',
      last: { status: 503 },
    })
  })

  it('times out with the last answer', async () => {
    const adapter: EngineAdapter = { ...vllm, readiness: () => 'loading' }
    const outcome = await waitReady({ ...base, adapter, http: scripted([404]), timeoutMs: 100 })
    expect(outcome).toMatchObject({ kind: 'timeout', last: { status: 404 } })
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(100)
  })

  it('a probe that throws counts as no connection', async () => {
    const http: HttpPorts = {
      get: () => Promise.reject(new Error('EHOSTUNREACH')),
      post: () => Promise.reject(new Error('x')),
    }
    expect(await waitReady({ ...base, adapter: vllm, http, timeoutMs: 50 })).toMatchObject({
      kind: 'timeout',
      last: { status: 0, body: 'Error: EHOSTUNREACH' },
    })
  })

  it('stops when the process exits', async () => {
    const exit = new AbortController()
    setTimeout(() => exit.abort({ code: 1, signal: null }), 30)
    expect(
      await waitReady({ ...base, adapter: vllm, http: scripted([0]), timeoutMs: 5000, exit: exit.signal }),
    ).toMatchObject({ kind: 'exit', exit: { code: 1 } })
  })
})
