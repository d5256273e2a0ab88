import { describe, expect, it } from 'vitest'
import { EngineModel, type StepResult } from '../../src/sim/engine.js'
import { parseProfile, type ProfileJson } from '../../src/sim/profile.js'
import { loadProfile, SHIPPED_PROFILE_NAMES } from '../../src/sim/profiles.js'
import { BAG_SIZE, createBag, createRng } from '../../src/sim/rng.js'
import { runRounds, simulate } from '../../src/sim/virtual-run.js'

function profile(overrides: Partial<ProfileJson> = {}) {
  return parseProfile(
    {
      name: 'unit',
      model: 'm',
      source: 'test',
      prefill: { 'tokens-per-s': 1000 },
      decode: { 'step-ms': { base: 10, 'per-seq': 2 } },
      ...overrides,
    },
    'unit',
  )
}

const times = (events: { at: number }[]) => events.map((e) => e.at)
const within = (actual: number, expected: number, share: number) =>
  expect(Math.abs(actual - expected) / expected).toBeLessThanOrEqual(share)

describe('shipped profiles reproduce their published rows (pure model, SPEC §5 definitions)', () => {
  const cases = SHIPPED_PROFILE_NAMES.flatMap((name) => [1, 2, 3].map((seed) => ({ name, seed })))
  it.each(cases)('$name, seed $seed: every published figure within 5 %', ({ name, seed }) => {
    const p = loadProfile(name)
    const r = p.reproduces
    expect(r, `${name} has no reproduces block`).toBeDefined()
    if (!r) return
    const { steady } = runRounds(p, seed, r)
    const checked = Object.entries(r.expect).filter(([, v]) => v !== undefined)
    expect(checked.length).toBeGreaterThanOrEqual(2)
    for (const [key, published] of checked) {
      const actual = steady[key as keyof typeof steady]
      expect(
        Math.abs(actual - (published as number)) / (published as number),
        `${name} ${key}: model ${actual.toFixed(2)} vs published ${published}`,
      ).toBeLessThanOrEqual(0.05)
    }
  })

  it('leaderboard profiles spread TTFT like the published rows (p99 about 1.4 x mean)', () => {
    for (const name of SHIPPED_PROFILE_NAMES) {
      const p = loadProfile(name)
      if (p.reproduces?.concurrency !== 8) continue
      const { rounds } = runRounds(p, 1, p.reproduces)
      const ttfts = rounds[1].ttfts.slice().sort((a, b) => a - b)
      const mean = ttfts.reduce((a, b) => a + b, 0) / ttfts.length
      expect(ttfts[7] / mean, name).toBeGreaterThan(1.25)
      expect(ttfts[7] / mean, name).toBeLessThan(1.6)
    }
  })
})

describe('engine model schedule', () => {
  it('one request: TTFT = prompt / prefill rate, then one token per decode step', () => {
    const [r] = simulate(profile(), 1, [{ at: 0, promptTokens: 500, maxTokens: 4 }])
    expect(times(r.events)).toEqual([500, 510, 520, 530])
    expect(r.events.every((e) => e.tokens === 1)).toBe(true)
  })

  it('chunked prefill splits a long prompt over steps and lets short prompts share a step', () => {
    const p = profile({ prefill: { 'tokens-per-s': 1000, 'chunk-tokens': 300 } })
    const engine = new EngineModel(p, createRng(1))
    engine.submit({ id: 0, promptTokens: 500, maxTokens: 2 })
    engine.submit({ id: 1, promptTokens: 100, maxTokens: 2 })
    const s1 = engine.step(0) as StepResult
    expect([s1.prefillTokens, s1.end, s1.emissions.length]).toEqual([300, 300, 0])
    const s2 = engine.step(s1.end) as StepResult
    // 200 tokens finish request 0, 100 finish request 1: both first tokens in this step.
    expect([s2.prefillTokens, s2.end]).toEqual([300, 600])
    expect(s2.emissions.map((e) => [e.id, e.first])).toEqual([
      [0, true],
      [1, true],
    ])
    const s3 = engine.step(s2.end) as StepResult
    // Decode for a batch of 2 costs base + per-seq.
    expect([s3.decodeSeqs, s3.end - s2.end, s3.emissions.every((e) => e.done)]).toEqual([2, 12, true])
    expect(engine.busy).toBe(false)
  })

  it('a mixed step costs the decode step plus the prefill it carries; later arrivals wait for the next step', () => {
    const out = simulate(profile(), 1, [
      { at: 0, promptTokens: 100, maxTokens: 3 },
      { at: 50, promptTokens: 100, maxTokens: 1 },
    ])
    // Request 0: prefill 0..100. Request 1 arrived during it, so the next step is decode(1) + prefill(100) = 10 + 100; then request 0 decodes alone again.
    expect(times(out[0].events)).toEqual([100, 210, 220])
    expect(out[1].events).toEqual([{ at: 210, tokens: 1 }])
  })

  it('max-batch keeps later requests waiting until a stream finishes', () => {
    const out = simulate(profile({ 'max-batch': 1 }), 1, [
      { at: 0, promptTokens: 10, maxTokens: 2 },
      { at: 0, promptTokens: 10, maxTokens: 1 },
    ])
    expect(times(out[0].events)).toEqual([10, 20])
    expect(times(out[1].events)).toEqual([30])
  })

  it('a step table interpolates between batch sizes and extends past its ends', () => {
    const p = profile({
      decode: {
        'step-ms': [
          [1, 100],
          [3, 140],
          [5, 150],
        ],
      },
    })
    expect([1, 2, 3, 4, 5, 7].map(p.stepMs)).toEqual([100, 120, 140, 145, 150, 160])
  })

  it('speculative steps emit 1 + accepted tokens, never past max tokens, and count drafts like vLLM', () => {
    const p = profile({ speculative: { method: 'mtp', k: 3, accept: [0.25, 0.25, 0.25, 0.25] } })
    const engine = new EngineModel(p, createRng(7))
    engine.submit({ id: 0, promptTokens: 10, maxTokens: 50 })
    let tokens = 0
    let accepted = 0
    let drafts = 0
    let draftTokens = 0
    for (let i = 0; i < 100 && engine.busy; i++) {
      const s = engine.step(0) as StepResult
      for (const e of s.emissions) {
        expect(e.tokens).toBeLessThanOrEqual(e.first ? 1 : 4)
        tokens += e.tokens
        if (!e.first) accepted += e.tokens - 1
      }
      drafts += s.drafts
      draftTokens += s.draftTokens
      expect(s.accepted).toBeLessThanOrEqual(s.draftTokens)
      accepted -= s.accepted
    }
    expect(tokens).toBe(50)
    expect(accepted).toBe(0)
    expect(draftTokens).toBe(3 * drafts)
  })

  it('cancel frees the stream: nothing more is emitted for it', () => {
    const engine = new EngineModel(profile(), createRng(1))
    engine.submit({ id: 0, promptTokens: 10, maxTokens: 100 })
    engine.submit({ id: 1, promptTokens: 10, maxTokens: 2 })
    engine.step(0)
    engine.cancel(0)
    const s = engine.step(0) as StepResult
    expect(s.emissions.map((e) => e.id)).toEqual([1])
  })

  it('jitter is seeded: same seed, same schedule; another seed, another schedule; mean stays on the profile', () => {
    const p = profile({ 'jitter-cv': 0.1 })
    const arrivals = [{ at: 0, promptTokens: 100, maxTokens: 400 }]
    const a = times(simulate(p, 5, arrivals)[0].events)
    expect(times(simulate(p, 5, arrivals)[0].events)).toEqual(a)
    expect(times(simulate(p, 6, arrivals)[0].events)).not.toEqual(a)
    const gaps = a.slice(1).map((t, i) => t - a[i])
    const mean = gaps.reduce((x, y) => x + y, 0) / gaps.length
    const sd = Math.sqrt(gaps.reduce((x, g) => x + (g - mean) ** 2, 0) / gaps.length)
    // 399 draws: the mean of a cv 0.1 step is 10 ± 0.05 (1 sd); the cv itself lands near 0.1.
    within(mean, 10, 0.02)
    within(sd / mean, 0.1, 0.2)
  })
})

describe('acceptance bag', () => {
  it.each([
    { weights: [0.2, 0.25, 0.25, 0.3], counts: [4, 5, 5, 6] },
    { weights: [1, 1, 1], counts: [7, 7, 6] },
    { weights: [0, 1], counts: [0, 20] },
  ])('every block of $counts.length outcomes from $weights holds exactly $counts', ({ weights, counts }) => {
    const draw = createBag(weights, createRng(3))
    for (let block = 0; block < 5; block++) {
      const seen = Array<number>(weights.length).fill(0)
      for (let i = 0; i < BAG_SIZE; i++) seen[draw()]++
      expect(seen).toEqual(counts)
    }
  })
})

describe('KV budget (kv-tokens): preemption as vLLM recomputes it', () => {
  function drain(model: EngineModel) {
    const steps: StepResult[] = []
    for (let t = 0, s = model.step(t); s; s = model.step(t)) {
      steps.push(s)
      t = s.end
    }
    return steps
  }

  it('running streams past the budget preempt the newest; every request still gets all its tokens, one first token', () => {
    // 4 × 100-token prompts fit 600; decoding 4 tokens a step passes 600 after about 50 steps.
    const model = new EngineModel(profile({ 'kv-tokens': 600 }), createRng(1))
    for (let id = 0; id < 4; id++) model.submit({ id, promptTokens: 100, maxTokens: 200 })
    const steps = drain(model)
    const preemptions = steps.reduce((n, s) => n + (s.preemptions ?? 0), 0)
    expect(preemptions).toBeGreaterThan(0)
    for (let id = 0; id < 4; id++) {
      const own = steps.flatMap((s) => s.emissions.filter((e) => e.id === id))
      expect(own.reduce((n, e) => n + e.tokens, 0)).toBe(200)
      expect(own.filter((e) => e.first)).toHaveLength(1)
      expect(own.filter((e) => e.done)).toHaveLength(1)
    }
    // A preempted stream's prompt and output so far are prefilled again.
    expect(steps.reduce((n, s) => n + s.prefillTokens, 0)).toBeGreaterThan(400)
  })

  it('without the field nothing is preempted and no step says so', () => {
    const model = new EngineModel(profile(), createRng(1))
    for (let id = 0; id < 4; id++) model.submit({ id, promptTokens: 100, maxTokens: 200 })
    const steps = drain(model)
    expect(steps.some((s) => 'preemptions' in s)).toBe(false)
    expect(steps.reduce((n, s) => n + s.prefillTokens, 0)).toBe(400)
  })
})
