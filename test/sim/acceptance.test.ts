import { describe, expect, it } from 'vitest'
import { draftScale, meanLength, requestAcceptance, STRATUM_SCALE, stratumOf } from '../../src/sim/acceptance.js'
import { EngineModel, type EngineRequest } from '../../src/sim/engine.js'
import { loadProfile } from '../../src/sim/profiles.js'
import { createRng } from '../../src/sim/rng.js'

const MTP = loadProfile('vllm-qwen38-27b-nvfp4-mtp3')
const spec = MTP.speculative!

/** Each request's tokens per verify step (its acceptance length), running `requests` to the end on one engine. */
function lengths(requests: EngineRequest[], seed: number, draft = 1): Map<number, number> {
  const model = new EngineModel(MTP, createRng(seed), createRng(seed + 1), {}, draft)
  for (const r of requests) model.submit(r)
  const tokens = new Map<number, number>()
  const steps = new Map<number, number>()
  for (let t = 0; model.busy;) {
    const step = model.step(t)!
    t = step.end
    for (const e of step.emissions) {
      if (e.first) continue
      tokens.set(e.id, (tokens.get(e.id) ?? 0) + e.tokens)
      steps.set(e.id, (steps.get(e.id) ?? 0) + 1)
    }
  }
  return new Map([...tokens].map(([id, n]) => [id, n / steps.get(id)!]))
}

const prose = (i: number) => `From Ana in Porto: please summarise these notes about the garden, number ${i}`
const request = (id: number, text: string, factor = 1): EngineRequest => ({
  id,
  promptTokens: 64,
  maxTokens: 400,
  acceptance: requestAcceptance(text, draftScale(spec, factor)),
})

describe('acceptance as a function of the prompt', () => {
  it('the same prompt accepts the same drafts whatever runs beside it and whatever the launch seed', () => {
    const alone = lengths([request(0, prose(7))], 1)
    const crowded = lengths([request(5, prose(1)), request(0, prose(7)), request(9, prose(2))], 99)
    expect(crowded.get(0)).toBe(alone.get(0))
    // Another prompt accepts differently: the figure is the text's, not a constant.
    const others = [1, 2, 3, 4, 5].map((i) => lengths([request(0, prose(i))], 1).get(0))
    expect(new Set(others).size).toBeGreaterThan(1)
  })

  it("over many prompts the mean length is the profile's, and an accept factor of 0.9 makes it 10 % shorter", () => {
    const many = (factor: number) => {
      const l = [
        ...lengths(
          Array.from({ length: 200 }, (_, i) => request(i, prose(i), factor)),
          3,
        ).values(),
      ]
      return l.reduce((a, b) => a + b, 0) / l.length
    }
    const base = many(1)
    // 200 requests of ~130 steps each, drawn from shuffle bags: the mean sits within 1 % of the weights' own.
    expect(Math.abs(base / meanLength(spec) - 1)).toBeLessThan(0.01)
    expect(Math.abs(many(0.9) / base - 0.9)).toBeLessThan(0.01)
  })

  it('code and math prompts accept more than prose, by their stratum scale', () => {
    expect(stratumOf('please tidy the notes about the garden, the roses and the old apple tree')).toBe('prose')
    expect(stratumOf('def total(items):\n    return sum(i.price for i in items if i.qty > 0)')).toBe('code')
    expect(stratumOf('A crate holds 24 boxes of 15 cans: 24 × 15 = 360 cans, and 360 / 8 = 45 per shelf')).toBe('math')
    expect(STRATUM_SCALE.code).toBeGreaterThan(STRATUM_SCALE.math)
    expect(STRATUM_SCALE.math).toBeGreaterThan(STRATUM_SCALE.prose)
  })

  it('refuses a factor that would make the mean length shorter than one token', () => {
    expect(() => draftScale(spec, 0.2)).toThrow(/accept-factor: 0.2 asks for a mean length below 1/)
  })
})
