/**
 * The wait for ready ends early when the engine's log says it listens on another port and ours keeps refusing
 * connections for the grace; an answer of any kind on our port (a proxy's 502) keeps the wait going.
 */
import { describe, expect, it } from 'vitest'
import type { HttpPorts, ProbeAnswer } from '../../src/engines/types.js'
import { vllm } from '../../src/engines/vllm.js'
import { waitReady } from '../../src/server/readiness.js'
import { memoryLogger } from '../helpers/memory-logger.js'

const LINE = 'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)'
const base = { id: 't', baseUrl: 'http://127.0.0.1:41234', adapter: vllm, log: memoryLogger(), pollMs: 5 }

function answering(status: () => number): HttpPorts {
  const get = async (): Promise<ProbeAnswer> => {
    const code = status()
    return { status: code, body: code === 0 ? 'connection refused' : '' }
  }
  return { get, post: get }
}
const refused = answering(() => 0)

describe('waitReady: listening elsewhere', () => {
  it('ends once our port has refused for the grace since the line', async () => {
    const outcome = await waitReady({
      ...base,
      http: refused,
      timeoutMs: 5000,
      elsewhere: () => LINE,
      elsewhereGraceMs: 150,
    })
    expect(outcome).toMatchObject({ kind: 'elsewhere', line: LINE })
    if (outcome.kind !== 'elsewhere') return
    expect(outcome.refusedMs).toBeGreaterThanOrEqual(150)
    expect(outcome.elapsedMs).toBeLessThan(2000)
  })

  it('counts the grace from when the line appears', async () => {
    const started = Date.now()
    const outcome = await waitReady({
      ...base,
      http: refused,
      timeoutMs: 5000,
      elsewhere: () => (Date.now() - started > 200 ? LINE : undefined),
      elsewhereGraceMs: 150,
    })
    expect(outcome).toMatchObject({ kind: 'elsewhere' })
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(350)
  })

  it('an answer on our port (a proxy before the engine) is not elsewhere', async () => {
    const outcome = await waitReady({
      ...base,
      http: answering(() => 502),
      timeoutMs: 300,
      elsewhere: () => LINE,
      elsewhereGraceMs: 50,
    })
    expect(outcome).toMatchObject({ kind: 'timeout', last: { status: 502 } })
  })

  it('an answer within the grace starts it again', async () => {
    let probes = 0
    // Every other probe answers 502: refusals never span the grace (a few ms each at 5 ms polls).
    const outcome = await waitReady({
      ...base,
      http: answering(() => (++probes % 2 === 0 ? 502 : 0)),
      timeoutMs: 400,
      elsewhere: () => LINE,
      elsewhereGraceMs: 250,
    })
    expect(outcome.kind).toBe('timeout')
  })

  it('without a line it waits for the timeout', async () => {
    const outcome = await waitReady({ ...base, http: refused, timeoutMs: 200, elsewhere: () => undefined })
    expect(outcome.kind).toBe('timeout')
  })
})
