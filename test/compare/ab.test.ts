import { describe, expect, it } from 'vitest'
import {
  abCellVerdict,
  abMetric,
  abOrder,
  launchSe,
  type AbLaunch,
  type AbValue,
  type Arm,
} from '../../src/compare/index.js'
import type { RelativeMetric } from '../../src/core/metrics.js'
import type { GateConfig, GateMetricConfig } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { type Figures, cell, flatCell, round } from '../helpers/builders.js'

const ID = 'sim-fp8/chat-1k'
const DECODE: GateMetricConfig = { maxRegression: 0.05, stat: 'mean' }

/** ABBA × 2 with every base launch at `base` and every PR launch at `pr`; `drift` multiplies launch i by (1 + drift)^i. */
function launches(base: number, pr: number, se = 0, drift = 0): AbValue[] {
  return abOrder(2).map((arm, i) => ({ arm, value: (arm === 'base' ? base : pr) * (1 + drift) ** i, se }))
}

describe('abOrder', () => {
  it.each([
    [1, 'base pr'],
    [2, 'base pr pr base'],
    [3, 'base pr pr base base pr'],
    [4, 'base pr pr base base pr pr base'],
  ])('%i launches per arm: %s', (n, order) => {
    expect(abOrder(n).join(' ')).toBe(order)
  })

  it.each([0, -1, 1.5])('refuses %s launches per arm', (n) => {
    expect(() => abOrder(n)).toThrow(/ab-launches/)
  })
})

describe('abMetric: the rule', () => {
  // Every pair at the same ratio x (s = 0, no round noise): σ² = s₀ = 2f² (0.045 % at f = 1.5 %) and after n = 2
  // pairs ln Λ = 2·ln[(s₀ + x²) / (s₀ + (x − μ₁)²)] (compare/sequential.ts), μ₁ = −ln 0.9 = 10.5 % for decode at
  // a 5 % limit; a regression at ln 50 = 3.91, a pass at −ln 30 = −3.40. The interval h = 1.96·f = 2.94 %.
  interface Case {
    name: string
    metric?: RelativeMetric
    config?: GateMetricConfig
    values: AbValue[]
    floor?: number
    final?: boolean
    status: string
    more?: number
    leans?: boolean
    reason?: RegExp
  }
  const TTFT_MD: GateMetricConfig = { maxRegression: 0.1, minDelta: 50, stat: 'mean' }
  const cases: Case[] = [
    // x = μ₁: 2·ln(1 + μ₁²/s₀) = 6.49, 659 : 1.
    { name: 'decode −10 % (2L): a regression at the first block', values: launches(50, 45), status: 'regression', reason: /: a loss of 10% \(twice the limit\) is 659 : 1 likelier than none$/ }, // prettier-ignore
    // x = 7.3 %: 2·ln(5.72 / 1.53) = 2.65, short of 3.91; held as it is, four pairs give 5.3.
    { name: 'decode −7 %: leans toward the loss, another pair decides', values: launches(50, 46.5), status: 'inconclusive', more: 2, leans: true, reason: /about 2 more launches per arm would decide\)$/ }, // prettier-ignore
    // The last look: 7 % ± 2.9 % straddles the limit, under 2L: inconclusive, leaning toward the loss.
    { name: 'decode −7 % at the last launch: the interval straddles the limit', values: launches(50, 46.5), final: true, status: 'inconclusive', leans: true }, // prettier-ignore
    // x = 3.0 %: 2·ln(1.38 / 6.07) = −2.96, short of −3.40.
    { name: 'decode −3 %: one more block', values: launches(50, 48.5), status: 'inconclusive', more: 1 },
    { name: 'no change: a pass at the first block', values: launches(50, 50), status: 'pass', reason: /: no change is 659 : 1 likelier than a loss of 10% \(twice the limit\)$/ }, // prettier-ignore
    { name: 'decode +6 %: a pass (faster, within the limit)', values: launches(50, 53), status: 'pass' },
    // A gain counts against a loss (the pairs' mean stands in for "no loss"), and for the gain of 2L.
    { name: 'decode +10 %: an improvement', values: launches(50, 55), status: 'improvement', reason: /a gain of 10% is .* likelier than none$/ }, // prettier-ignore
    { name: 'TTFT −20 %: lower is better', metric: 'ttft', config: { maxRegression: 0.1, stat: 'mean' }, values: launches(200, 160), status: 'improvement' }, // prettier-ignore
    // f = 5 %: s₀ = 0.5 %, 2·ln(0.5 / 1.61) = −2.34: the floor says launches this noisy need another pair.
    { name: 'no change at a 5 % floor: another pair', values: launches(50, 50), floor: 0.05, status: 'inconclusive', more: 1 }, // prettier-ignore
    { name: 'decode −12 % at a 5 % floor: undecided while a block may follow', values: launches(50, 44), floor: 0.05, status: 'inconclusive', leans: true }, // prettier-ignore
    { name: 'decode −12 % at a 5 % floor, last launch: past 2L fails whatever the noise', values: launches(50, 44), floor: 0.05, final: true, status: 'regression', reason: /more than twice the limit, the sequential test undecided at the last launch$/ }, // prettier-ignore
    // At the limit, the midpoint of the two hypotheses: held as it is, the test never decides.
    { name: 'a change at the limit never decides and says so', values: launches(50, 47.5, 0.004), floor: 0, status: 'inconclusive', more: 20, leans: true, reason: /at least 20 more launches per arm would be needed\)$/ }, // prettier-ignore
    { name: 'pairs that disagree (s > σ0) decide nothing', values: [{ arm: 'base', value: 50 }, { arm: 'pr', value: 44 }, { arm: 'pr', value: 50 }, { arm: 'base', value: 50 }], status: 'inconclusive', leans: true }, // prettier-ignore
    // min-delta: TTFT 10 % and 50 ms at a 200 ms base is a 25 % limit (2L = 50 %); at 1000 ms the 10 % is the stricter.
    { name: 'TTFT +20 % under min-delta (50 ms of 200 ms): near the midpoint, undecided', metric: 'ttft', config: TTFT_MD, values: launches(200, 240), status: 'inconclusive', reason: /^TTFT \+20\.0% ± 2\.9% .*; limit 10% and 50 ms\): the sequential test is undecided/ }, // prettier-ignore
    { name: 'TTFT +20 % under min-delta at the last launch: the interval rules out 2L, a pass', metric: 'ttft', config: TTFT_MD, values: launches(200, 240), final: true, status: 'pass', reason: /the interval rules out a loss of twice the limit at the last launch$/ }, // prettier-ignore
    { name: 'TTFT +35 % past min-delta', metric: 'ttft', config: TTFT_MD, values: launches(200, 270), status: 'regression' }, // prettier-ignore
    { name: 'TTFT +15 % at 1000 ms: max-regression is the stricter', metric: 'ttft', config: TTFT_MD, values: launches(1000, 1150), status: 'regression' }, // prettier-ignore
    { name: 'TTFT p99 +12 % is judged on p99 and named so', metric: 'ttft', config: { maxRegression: 0.05, stat: 'p99' }, values: launches(300, 336), status: 'regression', reason: /^TTFT p99 \+12\.0%/ }, // prettier-ignore
    { name: 'decode min-delta 3 tok/s of 20 makes the limit 15 %', config: { maxRegression: 0.05, minDelta: 3, stat: 'mean' }, values: launches(20, 18), status: 'pass' }, // prettier-ignore
  ]

  it.each(cases)(
    '$name',
    ({ metric = 'decode', config = DECODE, values, floor, final, status, more, leans, reason }) => {
      const v = abMetric({ metric, config, launches: values, noiseFloor: floor, final })
      expect(v.status).toBe(status)
      if (status === 'inconclusive') expect(v.needs).toBe('launches')
      else expect(v.needs).toBeUndefined()
      if (more !== undefined) expect(v.moreLaunches).toBe(more)
      expect(v.leansToLoss ?? false).toBe(leans ?? false)
      if (reason) expect(v.reason).toMatch(reason)
    },
  )

  it('reads as the report shows it: change ± interval, both arms, the limit', () => {
    // se 0.56 % a launch and no floor: h = 1.96 · √(2 · 0.0056²) / √2 = 1.1 %.
    const v = abMetric({ metric: 'decode', config: DECODE, launches: launches(21.8, 19.1, 0.0056), noiseFloor: 0 })
    expect(v.reason).toBe(
      'decode tok/s −12.4% ± 1.1% (A/B on this box, ABBA × 2: base 21.8 tok/s → PR 19.1 tok/s; limit 5%): a loss of 10% (twice the limit) is > 10,000 : 1 likelier than none',
    )
    // The smallest detectable loss: (2.326 + 1.645) · 0.79 % / √2 = 2.2 % on the log scale.
    expect(v.mde).toBeCloseTo(-Math.expm1((-(2.326 + 1.645) * Math.sqrt(2 * 0.0056 ** 2)) / Math.SQRT2), 12)
    expect(v).toMatchObject({ status: 'regression', stat: 'mean' })
    expect([v.current, v.baseline]).toEqual([expect.closeTo(19.1, 12), expect.closeTo(21.8, 12)])
    expect(v.delta).toBeCloseTo(19.1 / 21.8 - 1, 12)
    expect(v.band).toBeCloseTo(1.96 * 0.0056, 12)
  })

  it('a linear drift across the launches cancels: the change is the arms’, not the box’s', () => {
    // The box slows 3 % a launch and the PR is 5 % slower; launched B B P P instead, the PR would read −10.6 %.
    const v = abMetric({ metric: 'decode', config: DECODE, launches: launches(50, 47.5, 0, -0.03), noiseFloor: 0.01 })
    expect(v.delta).toBeCloseTo(-0.05, 12)
    // The pairs are ln 0.95 ± ln 0.97: s = √2 · 3.05 % = 4.3 %, so h = 1.96 · s / √2 = 6.0 %, not the floor's 2.8 %.
    expect(v.band).toBeCloseTo(-1.96 * Math.log(0.97), 12)
  })

  it('pairs must be one base and one PR launch', () => {
    const bad = (arms: Arm[]) => abMetric({ metric: 'decode', config: DECODE, launches: arms.map((arm) => ({ arm, value: 50 })) }) // prettier-ignore
    expect(() => bad(['base', 'base', 'pr', 'pr'])).toThrow(/launches 1 and 2 are both base/)
    expect(() => bad(['base', 'pr', 'pr'])).toThrow(/pairs of launches, got 3/)
  })
})

describe('abCellVerdict', () => {
  const GATE: GateConfig = {
    decode: DECODE,
    ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
    'failed-requests': { max: 0.01 },
  }
  const arms = (base: CellResult, pr: CellResult, n = 2): AbLaunch[] =>
    abOrder(n).map((arm) => ({ arm, cell: arm === 'base' ? base : pr }))
  const at = (f: Figures, extra: Partial<CellResult> = {}) => flatCell(ID, f, 3, 1, extra)

  it('judges every gated metric both arms measured; the cell takes the worst', () => {
    const v = abCellVerdict(arms(at({ decode: 50, ttft: 400 }), at({ decode: 44, ttft: 410 })), GATE)
    expect(v.status).toBe('regression')
    expect(Object.fromEntries(Object.entries(v.metrics).map(([k, m]) => [k, m.status]))).toEqual({
      decode: 'regression',
      ttft: 'pass',
      'failed-requests': 'pass',
    })
    expect(v.metrics.decode?.reason).toMatch(/^decode tok\/s −12\.0% ± 2\.9% \(A\/B on this box, ABBA × 2: base 50\.0/)
  })

  it('a share of failed requests the base arm kept under the ceiling fails the PR', () => {
    const pr = at({})
    pr.metrics = { ...pr.metrics!, failed_share: 0.05 }
    const v = abCellVerdict(arms(at({}), pr), GATE)
    expect(v.status).toBe('regression')
    expect(v.metrics['failed-requests']).toMatchObject({ status: 'regression', current: 0.05, baseline: 0 })
  })

  it.each([
    { name: 'a failed base launch', which: 3, extra: { status: 'error', error: 'exit 1 before ready' }, note: 'base launch 2 failed: exit 1 before ready' }, // prettier-ignore
    { name: 'a PR launch that measured nothing', which: 1, extra: { metrics: null }, note: 'PR launch 1 failed: it measured nothing' }, // prettier-ignore
  ] as const)('$name is an error naming the launch, never a pass', ({ which, extra, note }) => {
    const list = arms(at({}), at({}))
    list[which] = { ...list[which], cell: at({}, extra as Partial<CellResult>) }
    expect(abCellVerdict(list, GATE)).toEqual({ status: 'error', metrics: {}, note })
  })

  it('launches that are not paired base/PR are an error', () => {
    const list: AbLaunch[] = (['base', 'base', 'pr', 'pr'] as const).map((arm) => ({ arm, cell: at({}) }))
    expect(abCellVerdict(list, GATE)).toMatchObject({ status: 'error', note: /launches 1 and 2 are not one base/ })
    const odd: AbLaunch[] = (['base', 'pr', 'base'] as const).map((arm) => ({ arm, cell: at({}) }))
    expect(abCellVerdict(odd, GATE)).toMatchObject({ status: 'error', note: /launches 3 and 4/ })
  })

  it('a metric a PR launch lacks while the base arm has it leaves the cell inconclusive', () => {
    const pr = at({})
    pr.metrics = { ...pr.metrics!, decode_tps: { ...pr.metrics!.decode_tps, mean: Number.NaN } }
    const v = abCellVerdict(arms(at({}), pr), { decode: DECODE })
    expect(v.status).toBe('inconclusive')
    expect(v.undecided).toEqual(['decode tok/s: not measured by every launch, cannot compare', 'no gated metric measured by both arms']) // prettier-ignore
  })

  it('a flagged launch decides no speed figure', () => {
    const v = abCellVerdict(arms(at({ decode: 50 }), at({ decode: 40 }, { flags: ['lengths-missed: output 100/128'] })), { decode: DECODE }) // prettier-ignore
    expect(v.status).toBe('inconclusive')
    expect(v.metrics.decode).toMatchObject({ status: 'inconclusive', needs: 'workload' })
    expect(v.note).toMatch(/flagged \(lengths-missed: output 100\/128\): speed not compared/)
  })

  it('a launch’s standard error comes from its steady warm rounds', () => {
    const c = cell(ID, [
      round(0, false, { decode: 30 }),
      round(1, true, { decode: 48 }),
      round(2, true, { decode: 52 }),
    ])
    // sd of 48 and 52 is 2√2; / √2 rounds = 2; / 50 = 4 %.
    expect(launchSe(c, 'decode', 'mean', 50)).toBeCloseTo(0.04, 12)
    expect(launchSe(flatCell(ID, { decode: 50 }, 2, 1), 'decode', 'mean', 50)).toBe(0)
  })
})
