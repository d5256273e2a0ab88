/** How a PR's matrix file loosens a target's gate against its base commit's (config/gate-changes.ts). */
import { describe, expect, it } from 'vitest'
import { loosenedGate } from '../../src/config/gate-changes.js'
import type { GateConfig, TargetPlan } from '../../src/core/plan.js'
import { targetPlan } from '../server/target.js'

const BASE_GATE: GateConfig = {
  decode: { maxRegression: 0.05, stat: 'mean' },
  ttft: { maxRegression: 0.1, minDelta: 50, stat: 'p99' },
  'failed-requests': { max: 0.01 },
  goodput: { maxDrop: 0.05 },
}

function withGate(gate: GateConfig, settings: Partial<TargetPlan['settings']> = {}): TargetPlan {
  const plan = targetPlan({ gate })
  return { ...plan, settings: { ...plan.settings, ab: { ...plan.settings.ab, mode: 'confirm' }, ...settings } }
}

describe('loosenedGate', () => {
  it('names a raised limit, a dropped metric, a raised ceiling, min-delta and max-drop', () => {
    const pr: GateConfig = {
      decode: { maxRegression: 0.5, stat: 'mean' },
      'failed-requests': { max: 0.2 },
      goodput: { maxDrop: 0.3 },
    }
    expect(loosenedGate(withGate(pr), withGate(BASE_GATE))).toEqual([
      "raises decode tok/s's limit 5% → 50%",
      'TTFT is no longer gated',
      "raises failed requests' ceiling 1% → 20%",
      "raises goodput's max-drop 5 → 30 points",
    ])
    const ttft: GateConfig = { ...BASE_GATE, ttft: { maxRegression: 0.1, minDelta: 500, stat: 'p99' } }
    expect(loosenedGate(withGate(ttft), withGate(BASE_GATE))).toEqual(["raises TTFT's min-delta 50 → 500 ms"])
  })

  it('names a wider noise floor and an A/B turned off', () => {
    const pr = withGate(BASE_GATE, { noiseFloor: 0.1, ab: { mode: 'off', launches: 2, maxLaunches: 6, budgetMs: 1 } })
    expect(loosenedGate(pr, withGate(BASE_GATE))).toEqual([
      'raises noise-floor 1.5% → 10%',
      'turns the same-box A/B off',
    ])
  })

  it('says nothing of a gate as strict or stricter, or a metric the PR starts gating', () => {
    const stricter: GateConfig = { ...BASE_GATE, decode: { maxRegression: 0.02, stat: 'mean' }, energy: { maxRegression: 0.1, stat: 'mean' } } // prettier-ignore
    expect(loosenedGate(withGate(stricter), withGate(BASE_GATE))).toEqual([])
    expect(loosenedGate(withGate(BASE_GATE), withGate(BASE_GATE))).toEqual([])
  })
})
