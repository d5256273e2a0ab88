/**
 * Launch speed in virtual time: the box factor, the per-launch offset and slow periods act on every
 * step's duration, so the figures a benchmark reads move by exactly the multiplier.
 */
import { describe, expect, it } from 'vitest'
import { EngineModel, type StepResult } from '../../src/sim/engine.js'
import { parseProfile } from '../../src/sim/profile.js'
import { loadProfile, SHIPPED_PROFILE_NAMES } from '../../src/sim/profiles.js'
import { createRng, sideStream } from '../../src/sim/rng.js'
import {
  engineSpeed,
  isSlowWindow,
  launchSpeed,
  randomLaunchSeed,
  speedAt,
  type EngineSpeed,
  type SlowPeriods,
} from '../../src/sim/speed.js'
import { runRounds, simulate } from '../../src/sim/virtual-run.js'

/**
 * Float tolerance of "exactly k × the figure": the sped-up run divides each step's duration once (one
 * rounding, relative ε = 2⁻⁵³) and adds it to the clock (one more); a figure is a difference or ratio of
 * clock readings that sum at most S step durations over at most R rounds, so its relative error is at
 * most about 2·S·R·ε per run, twice that between two runs. The reproduced workloads run S < 500 steps in
 * R ≤ 3 rounds: 4·500·3·2⁻⁵³ ≈ 7e-13; 1e-11 leaves a margin and still catches any real drift.
 */
const EXACT = 1e-11

const FASTER = ['prefillTps', 'decodeTps', 'outputTps'] as const
const SLOWER = ['ttftMs', 'tpotMs', 'e2eMs', 'durationMs'] as const

/** Every steady figure of `speed`'s run against the unchanged run: throughput × k, latency ÷ k. */
function expectScaled(name: string, speed: EngineSpeed, k: number): void {
  const p = loadProfile(name)
  const w = p.reproduces
  if (!w) throw new Error(`${name} has no reproduces block`)
  const base = runRounds(p, 2, w).steady
  const got = runRounds(p, 2, w, speed).steady
  for (const key of FASTER) expect(Math.abs(got[key] / (base[key] * k) - 1), `${name} ${key}`).toBeLessThan(EXACT)
  for (const key of SLOWER) expect(Math.abs((got[key] * k) / base[key] - 1), `${name} ${key}`).toBeLessThan(EXACT)
}

describe('box factor and launch multiplier in virtual time', () => {
  it.each(SHIPPED_PROFILE_NAMES)('%s at box factor 0.9: tok/s and prefill 0.9 ×, latencies ÷ 0.9', (name) => {
    expectScaled(name, { multiplier: launchSpeed({ boxFactor: 0.9 }) }, 0.9)
  })

  it('nothing set: the schedule is bit-for-bit the unchanged one', () => {
    const p = loadProfile('vllm-qwen36-27b-fp8')
    const w = p.reproduces!
    const base = runRounds(p, 3, w)
    expect(runRounds(p, 3, w, {})).toEqual(base)
    expect(runRounds(p, 3, w, { multiplier: launchSpeed() })).toEqual(base)
    expect(runRounds(p, 3, w, engineSpeed({ launchSeed: 9 }))).toEqual(base)
    expect(runRounds(p, 3, w, { slow: { share: 0, factor: 0.2, windowMs: 500, seed: 4 } })).toEqual(base)
  })
})

describe('launchSpeed', () => {
  it('the same seed gives the same multiplier; the box factor multiplies it', () => {
    const one = launchSpeed({ launchCv: 0.03, launchSeed: 12345 })
    expect(launchSpeed({ launchCv: 0.03, launchSeed: 12345 })).toBe(one)
    expect(one).not.toBe(1)
    expect(launchSpeed({ launchCv: 0.03, launchSeed: 12346 })).not.toBe(one)
    expect(launchSpeed({ launchCv: 0.03, launchSeed: 12345, boxFactor: 0.9 })).toBe(0.9 * one)
    expect(launchSpeed({ launchCv: 0, launchSeed: 12345 })).toBe(1)
  })

  it.each([0.03, 0.1])('over many seeds, cv %s: mean 1 and sd = launch-cv within the sampling error', (cv) => {
    const n = 20_000
    const draws = Array.from({ length: n }, (_, seed) => launchSpeed({ launchCv: cv, launchSeed: seed * 7919 + 1 }))
    const mean = draws.reduce((a, b) => a + b, 0) / n
    const sd = Math.sqrt(draws.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1))
    // Log-normal with mean 1 and CV cv: s² = ln(1 + cv²), excess kurtosis γ₂ = e^{4s²} + 2e^{3s²} + 3e^{2s²} − 6.
    // se(mean) = cv/√n; Var(sd²) ≈ cv⁴(2/(n−1) + γ₂/n), se(sd) ≈ √Var(sd²) / (2 cv). Four standard errors each.
    const s2 = Math.log(1 + cv * cv)
    const kurtosis = Math.exp(4 * s2) + 2 * Math.exp(3 * s2) + 3 * Math.exp(2 * s2) - 6
    const seSd = Math.sqrt(cv ** 4 * (2 / (n - 1) + kurtosis / n)) / (2 * cv)
    expect(Math.abs(mean - 1)).toBeLessThan((4 * cv) / Math.sqrt(n))
    expect(Math.abs(sd - cv)).toBeLessThan(4 * seSd)
    expect(Math.min(...draws)).toBeGreaterThan(0)
  })

  it.each([
    { options: { launchCv: 0.5 }, error: 'launch-cv must be in [0, 0.5), got 0.5' },
    { options: { launchCv: -0.01 }, error: 'launch-cv must be in [0, 0.5)' },
    { options: { boxFactor: 0 }, error: 'box factor must be a number > 0, got 0' },
    { options: { launchSeed: 1.5 }, error: 'launch seed must be in [0, 2³²), got 1.5' },
  ])('refuses $options', ({ options, error }) => {
    expect(() => launchSpeed(options)).toThrow(error)
  })

  it('launch regimes: the offset is the same draw, and a share of launches runs at the regime factor', () => {
    // Without regimes a launch keeps the speed it had before regimes existed: the regime is drawn after the offset.
    const seeds = Array.from({ length: 20_000 }, (_, i) => i * 7919 + 1)
    const plain = seeds.map((launchSeed) => launchSpeed({ launchCv: 0.03, launchSeed }))
    const regimes = seeds.map((launchSeed) =>
      launchSpeed({ launchCv: 0.03, launchSeed, regimeShare: 0.15, regimeFactor: 0.9 }),
    )
    expect(seeds.map((launchSeed) => launchSpeed({ launchCv: 0.03, launchSeed, regimeShare: 0 }))).toEqual(plain)
    const slower = regimes.filter((r, i) => r !== plain[i])
    // Every launch is its offset or its offset × 0.9 (to the last bit of a product).
    for (const [i, r] of regimes.entries()) expect([plain[i], plain[i] * 0.9]).toContain(r)
    // Binomial share of 0.15 over 20,000 launches: four standard errors are 1.0 point.
    expect(Math.abs(slower.length / seeds.length - 0.15)).toBeLessThan(4 * Math.sqrt((0.15 * 0.85) / seeds.length))
    expect(() => launchSpeed({ regimeShare: 1.5 })).toThrow('regime-share must be in [0, 1], got 1.5')
    expect(() => launchSpeed({ regimeShare: 0.1, regimeFactor: 0 })).toThrow('regime-factor must be in (0, 1], got 0')
  })

  it('a fresh launch seed per call, from node:crypto', () => {
    const seeds = new Set(Array.from({ length: 8 }, randomLaunchSeed))
    // Eight 32-bit draws collide with probability below 8²/2³³ ≈ 7e-9.
    expect(seeds.size).toBe(8)
    for (const s of seeds) expect(Number.isInteger(s) && s >= 0 && s < 2 ** 32).toBe(true)
  })
})

describe('slow periods', () => {
  const slow = (share: number, seed = 5): SlowPeriods => ({ share, factor: 0.25, windowMs: 200, seed })

  it.each(SHIPPED_PROFILE_NAMES.slice(0, 3))('%s: share 1 runs everything at the slow factor', (name) => {
    expectScaled(name, { slow: slow(1) }, 0.25)
  })

  it('share 0.5: about half the windows are slow (binomial tolerance), decided by seed and index alone', () => {
    const n = 10_000
    const count = Array.from({ length: n }, (_, i) => isSlowWindow(slow(0.5), i)).filter(Boolean).length
    // Binomial(n, ½): sd = √n / 2; four of them.
    expect(Math.abs(count - n / 2)).toBeLessThan(4 * (Math.sqrt(n) / 2))
    // Another seed draws other windows, and asking in another order changes nothing.
    const other = Array.from({ length: 200 }, (_, i) => isSlowWindow(slow(0.5, 6), i))
    expect(other).not.toEqual(Array.from({ length: 200 }, (_, i) => isSlowWindow(slow(0.5), i)))
    expect(Array.from({ length: 200 }, (_, i) => isSlowWindow(slow(0.5), 199 - i)).reverse()).toEqual(
      Array.from({ length: 200 }, (_, i) => isSlowWindow(slow(0.5), i)),
    )
  })

  it('share 0.5 on a stream: a step is 1/F slower exactly when it starts in a slow window', () => {
    const p = parseProfile(
      { name: 'flat', model: 'm', source: 't', prefill: { 'tokens-per-s': 1000 }, decode: { 'step-ms': 20 } },
      'flat',
    )
    const spec: SlowPeriods = { share: 0.5, factor: 0.5, windowMs: 200, seed: 77 }
    const steps = (speed: EngineSpeed): StepResult[] => {
      const engine = new EngineModel(p, createRng(1), sideStream(1), speed)
      engine.submit({ id: 0, promptTokens: 100, maxTokens: 6000 })
      const out: StepResult[] = []
      for (let at = 0, s = engine.step(at); s; at = s.end, s = engine.step(at)) out.push(s)
      return out
    }
    const base = steps({})
    const slowed = steps({ slow: spec })
    expect(slowed).toHaveLength(base.length)
    const windows = new Map<number, boolean>()
    slowed.forEach((s, i) => {
      const ratio = (s.end - s.start) / (base[i].end - base[i].start)
      const inSlow = isSlowWindow(spec, Math.floor(s.start / spec.windowMs))
      expect(ratio).toBeCloseTo(inSlow ? 2 : 1, 9)
      expect(speedAt({ slow: spec }, s.start)).toBe(inSlow ? 0.5 : 1)
      windows.set(Math.floor(s.start / spec.windowMs), inSlow)
    })
    // Steps (20 or 40 ms) are shorter than a window, so every window up to the end is visited.
    const last = Math.floor(slowed[slowed.length - 1].start / spec.windowMs)
    expect(windows.size).toBe(last + 1)
    const slowCount = [...windows.values()].filter(Boolean).length
    expect(Math.abs(slowCount - windows.size / 2)).toBeLessThan(4 * (Math.sqrt(windows.size) / 2))
  })

  it('simulate honours the engine it is given', () => {
    const p = loadProfile('vllm-qwen35-08b')
    const arrivals = [{ at: 0, promptTokens: 512, maxTokens: 64 }]
    const [base] = simulate(p, 1, arrivals)
    const [slowed] = simulate(p, 1, arrivals, new EngineModel(p, createRng(1), sideStream(0), { multiplier: 0.8 }))
    const last = (o: typeof base) => o.events[o.events.length - 1].at
    expect(last(slowed) * 0.8).toBeCloseTo(last(base), 9)
  })
})
