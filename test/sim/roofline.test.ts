/**
 * Every shipped GB10 profile says its box's bandwidth and its model's bytes per step, and decodes below the
 * ceiling they make — at its published workload and at the demo's — in pure virtual time; at a time scale the
 * simulator serves a box that many times faster, so the share does not move.
 */
import { describe, expect, it } from 'vitest'
import { cellRoofline } from '../../src/compare/roofline-ceiling.js'
import { hasFigures, readRooflineHint } from '../../src/core/roofline.js'
import { loadProfile, SHIPPED_PROFILE_NAMES } from '../../src/sim/profiles.js'
import { rooflineHint } from '../../src/sim/roofline-hint.js'
import { runRounds } from '../../src/sim/virtual-run.js'
import type { Profile } from '../../src/sim/profile.js'

/** Tokens a verify step emits on average: 1 + the accepted drafts the profile's weights give. */
function acceptanceLength(p: Profile): number | undefined {
  const s = p.speculative
  if (!s) return undefined
  const total = s.accept.reduce((a, b) => a + b, 0)
  return s.accept.reduce((sum, w, i) => sum + w * (1 + i), 0) / total
}

const WORKLOADS = [
  { name: 'demo chat-128', inputTokens: 128, outputTokens: 24, concurrency: 4, rounds: 3, discard: 1 },
  { name: 'demo single-128', inputTokens: 128, outputTokens: 64, concurrency: 1, rounds: 3, discard: 1 },
  { name: 'chat-1k', inputTokens: 1024, outputTokens: 128, concurrency: 8, rounds: 2, discard: 1 },
]

function share(p: Profile, w: (typeof WORKLOADS)[number], timeScale: number): number {
  const { steady } = runRounds(p, 1, w)
  const hint = readRooflineHint(rooflineHint(p, timeScale))!
  const r = cellRoofline(
    {
      bandwidth: { value: hint.bandwidth!, source: hint.source },
      model: { weights: hint.weights!, kvPerToken: hint.kvPerToken, source: hint.source },
    },
    {
      // A run at time scale s delivers every simulated second in 1/s of a wall-clock second.
      decodeTps: steady.decodeTps * timeScale,
      ...w,
      drafting: p.speculative !== undefined,
      acceptanceLength: acceptanceLength(p),
    },
  )
  expect(hasFigures(r)).toBe(true)
  return hasFigures(r) ? r.share : NaN
}

describe('shipped profiles against their own roofline', () => {
  const cases = SHIPPED_PROFILE_NAMES.flatMap((name) => {
    const p = loadProfile(name)
    const published = p.reproduces && { name: 'published', ...p.reproduces }
    return [...(published ? [published] : []), ...WORKLOADS].map((w) => ({ profile: name, w }))
  })

  it.each(cases)('$profile at $w.name: below 100 % of the ceiling at time scale 1 and 4', ({ profile, w }) => {
    const p = loadProfile(profile)
    expect(p.roofline, `${profile} says no bandwidth and model bytes`).toBeDefined()
    expect(p.roofline?.bandwidth).toBe(273e9)
    const one = share(p, w, 1)
    expect(one).toBeGreaterThan(0.1)
    expect(one).toBeLessThan(1)
    expect(share(p, w, 4)).toBeCloseTo(one, 6)
  })

  it('tells the gate a box four times as fast at time scale 4', () => {
    const p = loadProfile('vllm-qwen38-27b-nvfp4')
    expect(rooflineHint(p, 4)).toEqual({
      roofline: {
        bandwidth: 4 * 273e9,
        weights: 16.4e9,
        kvPerToken: 32768,
        source: 'sim profile vllm-qwen38-27b-nvfp4 at time scale 4',
      },
    })
  })
})
