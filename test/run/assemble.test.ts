/** Assembling a run's results file: which cells are judged here, which baseline cells are added as missing, and the tally. */
import { describe, expect, it } from 'vitest'
import { assembleResults } from '../../src/run/assemble.js'
import { cellJudge } from '../../src/target/cell-judge.js'
import type { BaselineView } from '../../src/compare/index.js'
import { flatCell, resultsFile } from '../compare/fixtures.js'

const gate = { decode: { maxRegression: 0.05, stat: 'mean' as const } }
const view: BaselineView = { results: resultsFile(['a/s', 'b/s', 'c/s'].map((id) => flatCell(id, { decode: 50 }))), history: [] }
const run = resultsFile([]).run

describe('assembleResults', () => {
  it('judges read cells with their target gate, adds selected baseline cells as missing, and tallies', () => {
    const slow = flatCell('a/s', { decode: 40 })
    const error = { ...flatCell('b/s', {}), status: 'error' as const, error: 'boom', verdict: { status: 'error' as const, metrics: {} } }
    const rulesOf = (target: string) => ({ gate: target === 'a' ? gate : {} })
    const { results, tally } = assembleResults({
      run,
      cells: [slow, error],
      judge: cellJudge(view, rulesOf),
      missing: { view, selected: (id) => id !== 'd/s' },
      baseline: { sha: 'b', hardware: 'nvidia-gb10', source: 'base.json' },
    })
    expect(results.cells.map((c) => [c.id, c.verdict.status])).toEqual([
      ['a/s', 'regression'],
      ['b/s', 'error'],
      ['c/s', 'missing'],
    ])
    expect(tally).toEqual({ verdict: 'regression', regressions: 1, counts: { regression: 1, error: 1, missing: 1 } })
    expect(results.summary).toEqual({ ...tally, baseline: { sha: 'b', hardware: 'nvidia-gb10', source: 'base.json' } })
    expect(results.run).toBe(run)
  })

  it("judges read cells with their target's noise-floor", () => {
    // 8 % slower: past the 5 % limit, short of twice it; only the assumed launch-to-launch noise decides.
    const judged = (noiseFloor: number) =>
      assembleResults({ run, cells: [flatCell('a/s', { decode: 46 })], judge: cellJudge(view, () => ({ gate, noiseFloor })) }).results.cells[0].verdict
    expect(judged(0.005).status).toBe('regression')
    expect(judged(0.2).status).toBe('inconclusive')
  })

  it('keeps the verdicts of measured cells, which were judged and confirmed while their server was up', () => {
    const confirmed = { ...flatCell('a/s', { decode: 40 }), verdict: { status: 'inconclusive' as const, metrics: {}, note: 'regressed once, not confirmed' } }
    const { results, tally } = assembleResults({ run, cells: [confirmed] })
    expect(results.cells).toEqual([confirmed])
    expect(tally.verdict).toBe('inconclusive')
  })
})
