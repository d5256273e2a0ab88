/**
 * The simulated GPU's energy and the KV-cache gauge. Energy is integrated in simulated time: a GPU drawing 50 W idle
 * and 150 W busy, on a schedule known in virtual time, has drawn an exact number of joules, whatever the time scale
 * (checked on the real-time engine under a fake clock, so the schedule is exact). The KV gauge is the running
 * streams' tokens over the budget, read at a moment the schedule fixes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { sumByName } from '../../src/engines/prometheus.js'
import { EngineModel } from '../../src/sim/engine.js'
import { renderMetrics, SIM_ENERGY_COUNTER, SIM_POWER_GAUGE, SimCounters } from '../../src/sim/metrics-endpoint.js'
import { EnergyMeter } from '../../src/sim/power.js'
import { parseProfile, type ProfileJson } from '../../src/sim/profile.js'
import { GATHER_MS, RealtimeEngine } from '../../src/sim/realtime.js'
import { createRng } from '../../src/sim/rng.js'

const DRAW = { idleW: 50, busyW: 150 }

/** 1000 prompt tokens a second, unchunked, 20 ms decode steps, no jitter. */
const profile = (extra: Partial<ProfileJson> = {}) =>
  parseProfile(
    {
      name: 'p',
      model: 'm',
      source: 'test',
      prefill: { 'tokens-per-s': 1000 },
      decode: { 'step-ms': 20 },
      'power-w': { idle: 50, busy: 150 },
      ...extra,
    },
    'p',
  )

describe('EnergyMeter: idle W between steps, busy W during them, in simulated ms', () => {
  it('a known schedule draws an exact energy, the step in flight counted up to now', () => {
    const meter = new EnergyMeter(DRAW)
    meter.record({ start: 100, end: 300 })
    // 100 ms idle, 200 ms busy: 5 J + 30 J.
    expect(meter.joules(300)).toBeCloseTo(35, 12)
    // A step from 300 to 500 half run at 400: another 15 J busy.
    expect(meter.joules(400, { start: 300, end: 500 })).toBeCloseTo(50, 12)
    expect(meter.watts(400, { start: 300, end: 500 })).toBe(150)
    meter.record({ start: 300, end: 500 })
    // Then idle until 1000 ms: 400 ms busy in all, 600 ms idle: 60 J + 30 J.
    expect(meter.joules(1000)).toBeCloseTo(90, 12)
    expect(meter.watts(1000)).toBe(50)
    expect(meter.busyMs(1000)).toBe(400)
  })

  it('time a step shares with the previous one counts once, so the counter never runs ahead of the clock', () => {
    const meter = new EnergyMeter(DRAW)
    meter.record({ start: 0, end: 100 })
    meter.record({ start: 80, end: 150 })
    expect(meter.busyMs(150)).toBe(150)
    expect(meter.joules(150)).toBeCloseTo(22.5, 12)
    // A step wholly inside the previous one adds nothing.
    meter.record({ start: 120, end: 140 })
    expect(meter.busyMs(200)).toBe(150)
    let last = 0
    for (let t = 150; t <= 400; t += 10) {
      const j = meter.joules(t, { start: 200, end: 300 })
      expect(j).toBeGreaterThanOrEqual(last)
      last = j
    }
  })

  it('the profile field: busy below idle is refused, naming the field', () => {
    expect(() => profile({ 'power-w': { idle: 60, busy: 40 } })).toThrow(/profile p: power-w\.busy: busy must be/)
    expect(profile().power).toEqual(DRAW)
    expect(profile({ 'power-w': undefined }).power).toBeUndefined()
  })
})

describe('served energy on the real-time engine (fake clock)', () => {
  afterEach(() => vi.useRealTimers())

  /**
   * One request (100-token prompt, 5 tokens) at virtual 0: a 100 ms prefill step, then 4 decode steps of 20 ms,
   * 180 ms busy; read at virtual 1000 ms: 150 W × 0.18 s + 50 W × 0.82 s = 27 J + 41 J = 68 J.
   */
  async function servedAt(timeScale: number, virtualMs: number) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] })
    const p = profile()
    const counters = new SimCounters(p.power)
    const engine = new RealtimeEngine(p, 1, timeScale, (step) => counters.record(step))
    let tokens = 0
    engine.submit(100, 5, (e) => (tokens += e.tokens))
    // The idle engine gathers for GATHER_MS of wall time, then runs the schedule from the arrival.
    await vi.advanceTimersByTimeAsync(virtualMs / timeScale)
    const text = renderMetrics(p, counters, engine.state())
    engine.close()
    return { metrics: sumByName(text), tokens }
  }

  it.each([1, 25])('time scale %d: 68 J at virtual 1000 ms, the same figure at every scale', async (scale) => {
    const { metrics, tokens } = await servedAt(scale, 1000)
    expect(tokens).toBe(5)
    expect(metrics[SIM_ENERGY_COUNTER]).toBeCloseTo(68, 9)
    expect(metrics[SIM_POWER_GAUGE]).toBe(50)
    expect(metrics['sim:engine_busy_seconds_total']).toBeCloseTo(0.18, 9)
  })

  it('mid-step the gauge reads busy and the counter has the step so far', async () => {
    // At virtual 150 ms: the prefill (100 ms) and two decode steps (40 ms) done, the third 10 ms in: 150 ms busy.
    const { metrics } = await servedAt(1, GATHER_MS + 130)
    expect(metrics[SIM_POWER_GAUGE]).toBe(150)
    expect(metrics[SIM_ENERGY_COUNTER]).toBeCloseTo(150 * 0.15, 9)
  })

  it('while the idle engine gathers, the step it will start at the arrival already counts as running', async () => {
    const { metrics } = await servedAt(1, GATHER_MS / 2)
    expect(metrics[SIM_POWER_GAUGE]).toBe(150)
    expect(metrics[SIM_ENERGY_COUNTER]).toBeCloseTo((150 * GATHER_MS) / 2 / 1000, 9)
  })

  it('a profile without power-w serves neither', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] })
    const p = profile({ 'power-w': undefined })
    const engine = new RealtimeEngine(p, 1, 1)
    const text = renderMetrics(p, new SimCounters(p.power), engine.state())
    engine.close()
    expect(text).not.toContain('sim:gpu_')
    expect(text).not.toContain('kv_cache_usage')
  })
})

describe('KV-cache usage gauge (kv-tokens budget)', () => {
  it('equals the tokens the running streams hold over the budget, after each step', () => {
    const p = profile({ 'kv-tokens': 1000 })
    const model = new EngineModel(p, createRng(1))
    model.submit({ id: 0, promptTokens: 100, maxTokens: 10 })
    model.submit({ id: 1, promptTokens: 150, maxTokens: 3 })
    const gauge = () =>
      sumByName(renderMetrics(p, new SimCounters(), { running: 2, waiting: 0, kvTokens: model.kvUsed(), at: 0 }))[
        'vllm:kv_cache_usage_perc'
      ]
    const first = model.step(0)!
    // Both prompts prefilled, one token each: 101 + 151 of 1000.
    expect(model.kvUsed()).toBe(252)
    expect(gauge()).toBeCloseTo(0.252, 12)
    model.step(first.end)
    expect(gauge()).toBeCloseTo(0.254, 12)
    // Request 1 finishes with its third token and frees its 153 tokens: request 0's 103 are held.
    model.step(first.end + 20)
    expect(model.kvUsed()).toBe(103)
    expect(gauge()).toBeCloseTo(0.103, 12)
  })

  it('a lone stream over the budget reads a full cache, never more', () => {
    const p = profile({ 'kv-tokens': 50 })
    const model = new EngineModel(p, createRng(1))
    model.submit({ id: 0, promptTokens: 80, maxTokens: 4 })
    model.step(0)
    const text = renderMetrics(p, new SimCounters(), { running: 1, waiting: 0, kvTokens: model.kvUsed(), at: 0 })
    expect(sumByName(text)['vllm:kv_cache_usage_perc']).toBe(1)
    expect(text).toContain('# TYPE vllm:kv_cache_usage_perc gauge')
  })
})
