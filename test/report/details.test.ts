import { describe, expect, it } from 'vitest'
import { verdictNotes } from '../../src/report/markdown/details.js'
import type { CellResult, MetricVerdict } from '../../src/core/results.js'
import { measured } from '../helpers/builders.js'

function withVerdict(id: string, status: CellResult['verdict']['status'], metrics: MetricVerdict[]): CellResult {
  return { ...measured(id, { decode: 20 }), verdict: { status, metrics: Object.fromEntries(metrics.map((m) => [m.metric, m])) } } // prettier-ignore
}

const metric = (over: Partial<MetricVerdict>): MetricVerdict => ({
  status: 'regression',
  metric: 'decode',
  stat: 'mean',
  current: 19.1,
  baseline: 21.8,
  delta: -0.124,
  reason: 'decode tok/s −12.4% ± 1.1% (A/B on this box, ABBA × 2)',
  ...over,
})

describe('the verdict notes say what each measurement could detect', () => {
  it('a decided metric gets its smallest detectable loss; a reason that says it already, and a share, do not', () => {
    const notes = verdictNotes([
      withVerdict('a/decided', 'regression', [metric({ mde: 0.022 })]),
      withVerdict('b/undecided', 'inconclusive', [
        metric({ status: 'inconclusive', mde: 0.058, reason: 'decode tok/s −7.0% …: could detect a loss ≥ 5.8% at this noise' }), // prettier-ignore
      ]),
      withVerdict('c/goodput', 'regression', [metric({ metric: 'goodput', reason: 'goodput 100% → 80%', mde: 0.1 })]),
    ])!
    expect(notes).toContain(
      '**a/decided**: 🔴 decode tok/s −12.4% ± 1.1% (A/B on this box, ABBA × 2) · could detect ≥ 2.2%',
    )
    expect(notes.match(/could detect/g)).toHaveLength(2)
    expect(notes).toContain('goodput 100% → 80%')
    expect(notes).not.toContain('80% · could detect')
  })
})
