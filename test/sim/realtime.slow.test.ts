import { afterEach, describe, expect, it } from 'vitest'
import type { StepResult } from '../../src/sim/engine.js'
import { parseProfile } from '../../src/sim/profile.js'
import { GATHER_MS, RealtimeEngine } from '../../src/sim/realtime.js'
import { traceLag, type LagTrace } from '../helpers/lag-trace.js'

// 1000 prompt tokens per second, unchunked; 10 ms decode steps; time scale 1.
const profile = parseProfile(
  { name: 'rt', model: 'm', source: 'test', prefill: { 'tokens-per-s': 1000 }, decode: { 'step-ms': 10 } },
  'rt',
)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let engine: RealtimeEngine | undefined
let lag: LagTrace | undefined
afterEach(() => {
  engine?.close()
  lag?.stop()
  engine = lag = undefined
})

/**
 * A delivery is late by the spell of this thread's loop (traced) that held its timer, plus 1 ms of the timer's
 * whole-millisecond clock and 1 ms for the re-check of the deadline: the bound on a step's wall arrival.
 */
const deliveredBy = (dueMs: number, at: number) => dueMs + lag!.lateBy(at) + 2

/** Runs requests and resolves with, per request, the index of the step that delivered its first token and when. */
function harness() {
  const steps: StepResult[] = []
  lag = traceLag()
  engine = new RealtimeEngine(profile, 1, 1, (s) => steps.push(s))
  const e = engine
  const firsts = new Map<number, { step: number; at: number }>()
  const submit = (promptTokens: number, arrivedAt?: number) =>
    new Promise<{ step: number; at: number }>((resolve) => {
      const id = e.submit(
        promptTokens,
        1,
        (emission) => {
          const first = { step: steps.length - 1, at: performance.now() }
          firsts.set(id, first)
          if (emission.done) resolve(first)
        },
        arrivedAt,
      )
    })
  return { submit, steps }
}

describe('RealtimeEngine', () => {
  it(`requests reaching an idle engine within ${GATHER_MS} ms share the first step, which starts at the first arrival`, async () => {
    const h = harness()
    const t0 = performance.now()
    const a = h.submit(100)
    await sleep(GATHER_MS / 4)
    const b = h.submit(100)
    const [ra, rb] = await Promise.all([a, b])
    expect(ra.step).toBe(0)
    expect(rb.step).toBe(0)
    expect(h.steps[0].prefillTokens).toBe(200)
    // 200 prompt tokens at 1000/s from the first arrival; timers never fire early, load may make them late.
    expect(ra.at - t0).toBeGreaterThanOrEqual(199)
    expect(ra.at - t0).toBeLessThanOrEqual(deliveredBy(200, ra.at))
  })

  it('a request arriving after the first step was planned waits for the next one', async () => {
    const h = harness()
    const a = h.submit(100)
    await sleep(GATHER_MS + 30)
    const b = h.submit(100)
    const [ra, rb] = await Promise.all([a, b])
    expect([ra.step, rb.step]).toEqual([0, 1])
    expect(h.steps.map((s) => s.prefillTokens)).toEqual([100, 100])
    expect(h.steps[1].start).toBe(h.steps[0].end)
  })

  it('the arrival time given by the server (headers in) anchors the schedule, not the later submit', async () => {
    const h = harness()
    const arrived = performance.now() - 50
    const pending = h.submit(100, arrived)
    // The engine's clock read between two wall readings places the stated arrival on it within their span.
    const before = performance.now()
    const engineNow = engine!.now()
    const after = performance.now()
    const r = await pending
    // The step starts at the stated arrival (on the engine's clock, whatever the load), not at the submit.
    expect(h.steps[0].start).toBeGreaterThanOrEqual(engineNow - (after - arrived) - 1e-6)
    expect(h.steps[0].start).toBeLessThanOrEqual(engineNow - (before - arrived) + 1e-6)
    expect(h.steps[0].end - h.steps[0].start).toBeCloseTo(100, 9)
    // 100 ms of prefill from the stated arrival: about 50 ms from now, not 100.
    expect(r.at - arrived).toBeGreaterThanOrEqual(99)
    expect(r.at - arrived).toBeLessThanOrEqual(deliveredBy(100, r.at))
  })
})
