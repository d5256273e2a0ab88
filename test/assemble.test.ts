/** Assembling a run's results file: which cells are judged here, which baseline cells are added as missing, and the tally. */
import { describe, expect, it } from 'vitest'
import { assembleResults, cellJudge } from '../src/assemble.js'
import type { BaselineView } from '../src/compare/index.js'
import { flatCell, resultsFile } from './compare/fixtures.js'

const gate = { decode: { maxRegression: 0.05, stat: 'mean' as const } }
const view: BaselineView = { results: resultsFile(['a/s', 'b/s', 'c/s'].map((id) => flatCell(id, { decode: 50 }))), history: [] }
const run = resultsFile([]).run

describe('assembleResults', () => {
  it('judges read cells with their target gate, adds selected baseline cells as missing, and tallies', () => {
    const slow = flatCell('a/s', { decode: 40 })
    const error = { ...flatCell('b/s', {}), status: 'error' as const, error: 'boom', verdict: { status: 'error' as const, metrics: {} } }
    const gateOf = (target: string) => (target === 'a' ? gate : {})
    const { results, tally } = assembleResults({
      run,
      cells: [slow, error],
      judge: cellJudge(view, gateOf),
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

  it('keeps the verdicts of measured cells, which were judged and confirmed while their server was up', () => {
    const confirmed = { ...flatCell('a/s', { decode: 40 }), verdict: { status: 'inconclusive' as const, metrics: {}, note: 'regressed once, not confirmed' } }
    const { results, tally } = assembleResults({ run, cells: [confirmed] })
    expect(results.cells).toEqual([confirmed])
    expect(tally.verdict).toBe('inconclusive')
  })
})
