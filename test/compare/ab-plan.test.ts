import { describe, expect, it } from 'vitest'
import { abLimitPlans, formatAbPlan } from '../../src/compare/index.js'
import type { TargetPlan } from '../../src/core/plan.js'
import { targetPlan } from '../server/target.js'

/** A target running an A/B (`ab: confirm`, 2 to `most` launches per arm) at noise floor `floor`. */
function abTarget(floor: number, gate: TargetPlan['gate'], most = 6): TargetPlan {
  const plain = targetPlan({ id: 'sim-fp8', gate })
  return {
    ...plain,
    settings: { ...plain.settings, noiseFloor: floor, ab: { mode: 'confirm', launches: 2, maxLaunches: most, budgetMs: 3_600_000 } }, // prettier-ignore
  }
}

const DECODE = { decode: { maxRegression: 0.05, stat: 'mean' as const } }

describe('planning a same-box A/B (validate)', () => {
  it('at the default floor a 5 % decode limit is decided at the first block, mostly', () => {
    const [plan] = abLimitPlans(abTarget(0.015, DECODE))
    // Pairs of sd √2 × 1.5 % = 2.1 %: the test decides most at two launches per arm, both ways.
    expect(plan.metric).toBe('decode tok/s')
    expect(plan.unchanged).toBeGreaterThanOrEqual(2)
    expect(plan.unchanged).toBeLessThan(2.5)
    expect(plan.loss).toBeGreaterThanOrEqual(2)
    expect(plan.loss).toBeLessThan(2.5)
    // (2.326 + 1.645) × 2.1 % / √6 = 3.4 % on the log scale, within the 10.5 % of a 2L loss.
    expect(plan.mdeAtMost).toBeCloseTo(-Math.expm1((-(2.326 + 1.645) * Math.SQRT2 * 0.015) / Math.sqrt(6)), 12)
    expect(plan.decidable).toBe(true)
    const lines = formatAbPlan(abTarget(0.015, DECODE))
    expect(lines[0]).toBe('  a/b     at the noise floor 1.5% a launch, each cell from 2 to 6 launches per arm:')
    expect(lines[1]).toMatch(/^ {4}decode tok\/s 5%: 2\.\d launches per arm expected unchanged, 2\.\d at a 10% loss .*could detect ≥ 3\.4% at 6$/) // prettier-ignore
    expect(lines.join('\n')).not.toMatch(/warning/)
  })

  it('warns for a limit the most launches cannot decide, naming the setting and the figures', () => {
    // Floor 5 %, limit 1 %: six pairs detect (2.326 + 1.645) × 7.1 % / √6 = 11.5 % on the log scale (a 10.8 % loss), the test must catch 2 %.
    const lines = formatAbPlan(abTarget(0.05, { decode: { maxRegression: 0.01, stat: 'mean' } }))
    expect(lines.at(-1)).toBe(
      "    warning: ab-max-launches 6 cannot decide decode tok/s's 1% limit at this noise (it could detect ≥ 10.8%, the test must catch 2%); raise ab-max-launches or the limit, or lower the launch noise",
    )
    const [plan] = abLimitPlans(abTarget(0.05, { decode: { maxRegression: 0.01, stat: 'mean' } }))
    // Undecided as often as not: every trial runs to the most launches.
    expect(plan.unchanged).toBeGreaterThan(5)
  })

  it('plans every relative gated metric, and nothing for a target without an A/B', () => {
    const both = abLimitPlans(abTarget(0.015, { ...DECODE, ttft: { maxRegression: 0.1, minDelta: 50, stat: 'p99' } }))
    expect(both.map((p) => [p.metric, p.limit])).toEqual([
      ['decode tok/s', 0.05],
      ['TTFT p99', 0.1],
    ])
    expect(formatAbPlan(targetPlan({ gate: DECODE }))).toEqual([])
  })
})
