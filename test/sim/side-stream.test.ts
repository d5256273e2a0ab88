import { describe, expect, it } from 'vitest'
import { EngineModel, type EngineRequest, type StepResult } from '../../src/sim/engine.js'
import { loadProfile } from '../../src/sim/profiles.js'
import { createRng, sideStream } from '../../src/sim/rng.js'

// The quality probe runs before the benchmark on the same server. Its requests (untimed, honouring
// end-of-sequence) must not shift the benchmark's seeded schedule: same seed, same benchmark steps,
// whether a probe came first or not.
const profile = loadProfile('llamacpp-qwen38-27b-q4km-mtp5') // jitter and speculative acceptance: both draw randomness

function drain(model: EngineModel, start: number): StepResult[] {
  const steps: StepResult[] = []
  for (let t = start, step = model.step(t); step; t = step.end, step = model.step(t)) steps.push(step)
  return steps
}

const bench = (first: number): EngineRequest[] =>
  Array.from({ length: 4 }, (_, i) => ({ id: first + i, promptTokens: 128, maxTokens: 24 }))
const probe: EngineRequest[] = Array.from({ length: 12 }, (_, i) => ({
  id: 100 + i,
  promptTokens: 40,
  maxTokens: 6,
  side: true,
}))

/** The benchmark's steps, as durations and tokens delivered, after an optional probe. */
function benchmarkSteps(seed: number, withProbe: boolean, sideIsMain = false): Array<{ ms: number; tokens: number[] }> {
  const rng = createRng(seed)
  const model = new EngineModel(profile, rng, sideIsMain ? rng : sideStream(seed))
  let t = 0
  if (withProbe) {
    for (const r of probe) model.submit(r)
    const steps = drain(model, 0)
    t = steps[steps.length - 1].end
  }
  for (const r of bench(0)) model.submit(r)
  // Durations to 1e-9 ms: the later start only changes the last bits of `end - start`.
  return drain(model, t).map((s) => ({
    ms: Math.round((s.end - s.start) * 1e9) / 1e9,
    tokens: s.emissions.map((e) => e.tokens),
  }))
}

describe('untimed requests draw from a random stream of their own', () => {
  it('the benchmark after a probe has exactly the steps it has without one', () => {
    for (const seed of [1, 2, 7]) expect(benchmarkSteps(seed, true)).toEqual(benchmarkSteps(seed, false))
  })

  it('sharing one stream would shift the schedule (what the rule prevents)', () => {
    expect(benchmarkSteps(1, true, true)).not.toEqual(benchmarkSteps(1, false))
  })

  it('the probe itself is seeded: same seed, same probe steps', () => {
    const run = () => {
      const model = new EngineModel(profile, createRng(3), sideStream(3))
      for (const r of probe) model.submit(r)
      return drain(model, 0).map((s) => s.end)
    }
    expect(run()).toEqual(run())
  })
})
