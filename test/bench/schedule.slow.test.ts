import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient, type BenchClient } from '../../src/bench/measure.js'
import { closedLoop, openLoop, poissonArrivals, seededRandom } from '../../src/bench/stream/schedule.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'
import { plainAdapter } from './adapter.js'

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('seeded arrivals', () => {
  it('repeat for a seed and differ between seeds', () => {
    expect(poissonArrivals(20, 5, 42)).toEqual(poissonArrivals(20, 5, 42))
    expect(poissonArrivals(20, 5, 42)).not.toEqual(poissonArrivals(20, 5, 43))
    expect(seededRandom(1)()).toBe(seededRandom(1)())
  })

  it('start at 0, rise, and span exactly (n − 1)/rate', () => {
    const a = poissonArrivals(50, 10, 3)
    expect(a[0]).toBe(0)
    for (let i = 1; i < a.length; i++) expect(a[i]).toBeGreaterThanOrEqual(a[i - 1])
    expect(a[49]).toBeCloseTo((49 / 10) * 1000, 6)
  })

  // Exponential gaps have a coefficient of variation of 1; even spacing would have 0.
  it('have exponential gaps', () => {
    const a = poissonArrivals(4001, 100, 9)
    const gaps = a.slice(1).map((t, i) => t - a[i])
    const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length
    const sd = Math.sqrt(gaps.reduce((s, g) => s + (g - mean) ** 2, 0) / gaps.length)
    expect(mean).toBeCloseTo(10, 6)
    expect(sd / mean).toBeGreaterThan(0.9)
    expect(sd / mean).toBeLessThan(1.1)
  })
})

describe('closed loop', () => {
  it('keeps at most `concurrency` in flight and sends each request once', async () => {
    let inFlight = 0
    let peak = 0
    const sent: number[] = []
    const results = await closedLoop(10, 3, async (i) => {
      sent.push(i)
      peak = Math.max(peak, ++inFlight)
      await tick(5 + (i % 3) * 3)
      inFlight--
      return i
    })
    expect(peak).toBe(3)
    expect(sent.sort((a, b) => a - b)).toEqual([...Array(10).keys()])
    expect(results).toEqual([...Array(10).keys()])
  })

  it('marks every request due at the round start, so slot waits show as queue time', async () => {
    const due = new Set<number>()
    await closedLoop(6, 2, async (_i, dueAt) => {
      due.add(dueAt)
      await tick(2)
    })
    expect(due.size).toBe(1)
  })
})

describe('open loop', () => {
  it('sends on schedule without a cap on requests in flight', async () => {
    const offsets = [0, 10, 20, 30, 40]
    let inFlight = 0
    let peak = 0
    const start = performance.now()
    let first: number | undefined
    const lateness = await openLoop(offsets, async (i, dueAt) => {
      peak = Math.max(peak, ++inFlight)
      const late = performance.now() - dueAt
      // Due exactly the offsets apart, from the loop's own start (which a loaded runner may take a few ms to reach).
      first ??= dueAt
      expect(dueAt - first).toBeCloseTo(offsets[i], 6)
      expect(dueAt - start).toBeGreaterThanOrEqual(offsets[i])
      await tick(100)
      inFlight--
      return late
    })
    expect(peak).toBe(5)
    // A timer may slip a few ms on a busy machine; each request knows by how much.
    for (const late of lateness) expect(late).toBeGreaterThanOrEqual(0)
  })
})

describe('rate mode end to end', () => {
  let server: ScheduledServer | undefined
  let client: BenchClient | undefined
  afterEach(async () => {
    await client?.close()
    await server?.close()
  })

  it('follows the seeded arrivals and divides per-user throughput by the mean in flight', async () => {
    server = await startScheduledServer({ ttftMs: 50, intervalMs: 5 })
    client = createBenchClient({
      baseUrl: server.url,
      adapter: plainAdapter,
      model: 'm',
      api: 'completions',
      requestTimeoutMs: 5_000,
      maxConcurrency: 1,
    })
    const scenario = { id: 'rate', inputTokens: 20, outputTokens: 10, concurrency: 1, requests: 8, rate: 40 }
    const m = await client.measure({ scenario, rounds: 1, discard: 0, maxErrorShare: 0, seed: 11 })
    const arrivals = poissonArrivals(8, 40, 11)
    const sent = m.requests.map((r) => r.sentAt - r.queueMs)
    // Due times follow the arrival offsets exactly; send lateness is recorded, not hidden.
    sent.forEach((due, i) => expect(due - sent[0]).toBeCloseTo(arrivals[i] - arrivals[0], 6))
    for (const r of m.requests) expect(r.queueMs).toBeGreaterThanOrEqual(0)
    const round = m.rounds[0]
    const inFlight = m.requests.reduce((s, r) => s + r.e2eMs, 0) / round.durationMs
    expect(round.metrics.per_user_tps).toBeCloseTo(round.metrics.output_tps / inFlight, 9)
    expect(m.flags).toEqual([])
  })
})
