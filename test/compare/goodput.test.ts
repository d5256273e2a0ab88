/**
 * The goodput verdict: a share judged in points against the baseline, with the noise model. One steady-round pair a
 * side against a baseline file: with no round-to-round spread the band is the assumed launch noise,
 * 2.5 × √(2 × 1.5 %²) ≈ 5.3 % of a 100 % baseline, so a 6-point drop is past the 5-point limit and the band, a
 * 3-point drop within the limit, and a 6.25-point drop measured as 87.5 % and 100 % is within its own spread.
 */
import { describe, expect, it } from 'vitest'
import { abCellVerdict, judgeCell, type BaselineView } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { cell, resultsFile, round } from '../helpers/builders.js'

const ID = 'sim-fp8/chat'
const SLO = { ttftMs: 2000, tpotMs: 80 }
const GATE: GateConfig = { goodput: { maxDrop: 0.05 } }
const REQUESTS = 50

/** A cell whose steady rounds had these goodput shares (after one discarded round at the first share). */
/** `slo: null`: a scenario without latency targets, whose rounds have no goodput. */
function goodputCell(shares: number[], slo: typeof SLO | null = SLO): CellResult {
  const rounds = [shares[0], ...shares].map((share, i) => {
    const r = round(i, i > 0)
    r.requests = REQUESTS
    if (slo) Object.assign(r.metrics, { goodput: share, request_goodput: (share * REQUESTS) / 3 })
    return r
  })
  const c = cell(ID, rounds)
  c.workload = { ...c.workload, requests: REQUESTS, ...(slo && { slo }) }
  if (slo) c.metrics!.goodput = shares.reduce((s, v) => s + v, 0) / shares.length
  return c
}

const baseline = (shares: number[]): BaselineView => ({ history: [], results: resultsFile([goodputCell(shares)]) })

describe('goodput against the baseline', () => {
  it.each<[string, number[], number[], string, RegExp]>([
    [
      'a drop of 6 points, beyond the noise, is a regression',
      [1, 1],
      [0.94, 0.94],
      'regression',
      /^goodput 100% → 94% \(−6 points\) \(limit 5 points, noise ±5\.3 points\)$/,
    ],
    [
      'a drop of 3 points is within the limit',
      [1, 1],
      [0.97, 0.97],
      'pass',
      /^goodput 100% → 97% \(−3 points\) \(limit 5 points, noise ±5\.3 points\)$/,
    ],
    [
      'a drop of 6.25 points within its rounds’ spread is inconclusive',
      [1, 1],
      [0.875, 1],
      'inconclusive',
      /^goodput 100% → 93\.8% \(−6\.3 points\) \(limit 5 points\) but within noise ±\d+\.\d points; /,
    ],
    [
      'a drop past twice the limit fails whatever the noise',
      [1, 1],
      [0.5, 1],
      'regression',
      /^goodput 100% → 75% \(−25 points\) \(limit 5 points, noise ±\d+\.?\d* points\): more than twice the limit$/,
    ],
    [
      'the points are absolute: 5 points of a 50 % baseline is 10 % of it, within the limit at 4 points down',
      [0.5, 0.5],
      [0.46, 0.46],
      'pass',
      /^goodput 50% → 46% \(−4 points\) \(limit 5 points/,
    ],
    [
      'a rise beyond the limit and the noise is an improvement',
      [0.8, 0.8],
      [0.92, 0.92],
      'improvement',
      /^goodput 80% → 92% \(\+12 points\)/,
    ],
    [
      'a baseline of 0 % cannot drop: a share above the limit is an improvement',
      [0, 0],
      [0.4, 0.4],
      'improvement',
      /^goodput 0% → 40% \(the baseline's is 0: it cannot drop\)$/,
    ],
  ])('%s', (_name, base, current, status, reason) => {
    const verdict = judgeCell(goodputCell(current), baseline(base), GATE)
    expect(verdict.metrics.goodput?.status).toBe(status)
    expect(verdict.metrics.goodput?.reason).toMatch(reason)
    expect(verdict.status).toBe(status)
  })

  it('is not gated on a cell without an slo: no verdict and nothing undecided', () => {
    const plain = goodputCell([1, 1], null)
    const verdict = judgeCell(plain, { history: [], results: resultsFile([goodputCell([1, 1], null)]) }, GATE)
    expect(verdict.metrics.goodput).toBeUndefined()
    expect(verdict.undecided).toBeUndefined()
    expect(verdict.note ?? '').not.toMatch(/goodput/)
  })

  it('a cell with an slo but no goodput figure is undecided: it should have been measured', () => {
    const missing = goodputCell([1, 1])
    delete missing.metrics!.goodput
    for (const r of missing.rounds) delete r.metrics.goodput
    const verdict = judgeCell(missing, baseline([1, 1]), GATE)
    expect(verdict.status).toBe('inconclusive')
    expect(verdict.undecided).toContain('goodput: not measured, cannot compare')
  })

  it('a flagged workload leaves a goodput drop inconclusive, as a speed figure', () => {
    const flagged = goodputCell([0.9, 0.9])
    flagged.flags = ['usage-missing: 8/8 requests']
    const verdict = judgeCell(flagged, baseline([1, 1]), GATE)
    expect(verdict.metrics.goodput).toMatchObject({ status: 'inconclusive', needs: 'workload' })
  })
})

describe('goodput in a same-box A/B', () => {
  const launches = (base: number[], pr: number[]) =>
    ['base', 'pr', 'pr', 'base'].map((arm, i) => ({
      arm: arm as 'base' | 'pr',
      cell: goodputCell([[base[0], pr[0], pr[1], base[1]][i]]),
    }))

  it('judges the arms with the points as the limit', () => {
    const v = abCellVerdict(launches([1, 1], [0.98, 0.98]), GATE)
    expect(v.metrics.goodput).toMatchObject({ status: 'pass', baseline: 1, current: 0.98 })
    expect(v.metrics.goodput!.reason).toMatch(/limit 5 points\): no change is .* likelier than a loss of /)
  })

  it('a PR arm with no good request fails on the arms’ means, beyond twice the limit', () => {
    const v = abCellVerdict(launches([1, 1], [0, 0]), GATE)
    expect(v.metrics.goodput).toMatchObject({ status: 'regression', baseline: 1, current: 0 })
    expect(v.metrics.goodput!.reason).toBe(
      "goodput 100% → 0% (A/B on this box, arms' means; limit 5 points): more than twice the limit",
    )
    expect(v.status).toBe('regression')
  })

  it('is not judged on a cell without an slo', () => {
    const plain = ['base', 'pr'].map((arm) => ({ arm: arm as 'base' | 'pr', cell: goodputCell([1], null) }))
    expect(abCellVerdict(plain, { ...GATE, 'failed-requests': { max: 0.01 } }).metrics.goodput).toBeUndefined()
  })
})
