/**
 * A server that closes the connection after every streamed response while advertising keep-alive
 * (llama.cpp's llama-server does): no request fails. An adapter that says so gets a connection per
 * request and nothing is retried; one that does not sees its reused sockets closed before any
 * response byte, and those requests are sent once more and counted per round.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient } from '../../src/bench/measure.js'
import type { ScenarioPlan } from '../../src/core/plan.js'
import type { EngineAdapter } from '../../src/engines/types.js'
import { plainAdapter } from './adapter.js'
import { startClosingServer, type ClosingServer } from './closing-server.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function measure(adapter: EngineAdapter, concurrency: number) {
  const server: ClosingServer = await startClosingServer()
  closers.push(() => server.close())
  const client = createBenchClient({
    baseUrl: server.url,
    adapter,
    model: 'm',
    api: 'completions',
    requestTimeoutMs: 5_000,
    maxConcurrency: concurrency,
  })
  closers.push(() => client.close())
  const scenario: ScenarioPlan = { id: 's', inputTokens: 40, outputTokens: 6, concurrency, requests: 6 * concurrency }
  const m = await client.measure({ scenario, rounds: 2, discard: 0, maxErrorShare: 0, seed: 1 })
  return { server, m }
}

const fresh: EngineAdapter = { ...plainAdapter, freshConnectionPerRequest: true }

describe('a server that closes after every stream while advertising keep-alive', () => {
  it.each([2, 3, 4])(
    'with a connection per request (the adapter asks for it): concurrency %d, no failure, nothing retried',
    async (concurrency) => {
      const { server, m } = await measure(fresh, concurrency)
      expect(m.rounds.map((r) => r.errors)).toEqual([0, 0])
      expect(m.rounds.map((r) => r.retried)).toEqual([undefined, undefined])
      expect(m.requests.filter((r) => r.retried)).toEqual([])
      expect(m.flags).toEqual([])
      // Every request said `Connection: close`, and none was sent onto an answered socket.
      expect(server.stale).toBe(0)
      expect(server.askedClose).toBe(server.answered)
    },
  )

  it.each([2, 3, 4])(
    'reusing sockets (the adapter does not ask): concurrency %d, no failure, the closed ones retried and counted',
    async (concurrency) => {
      const { server, m } = await measure(plainAdapter, concurrency)
      expect(m.rounds.map((r) => r.errors)).toEqual([0, 0])
      const retried = m.rounds.reduce((s, r) => s + (r.retried ?? 0), 0)
      expect(retried).toBeGreaterThan(0)
      expect(retried).toBe(m.requests.filter((r) => r.retried).length)
      expect(m.requests.every((r) => r.ok)).toBe(true)
      // Every retry answers one request the server never answered (calibration probes may add more).
      expect(server.stale).toBeGreaterThanOrEqual(retried)
      expect(m.flags).toEqual([])
    },
  )
})
