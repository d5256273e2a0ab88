/** Assembling a run's results file: the judged cells as they are, the selected baseline cells added as missing, and the tally. */
import { describe, expect, it } from 'vitest'
import type { BaselineView } from '../../src/compare/index.js'
import { assembleResults } from '../../src/run/assemble.js'
import { flatCell, resultsFile } from '../helpers/builders.js'

const view: BaselineView = {
  results: resultsFile(['a/s', 'b/s', 'c/s', 'd/s'].map((id) => flatCell(id, { decode: 50 }))),
  history: [],
}
const run = resultsFile([]).run

describe('assembleResults', () => {
  it('keeps the verdicts of the judged cells, adds selected baseline cells as missing, and tallies', () => {
    const regressed = { ...flatCell('a/s', { decode: 40 }), verdict: { status: 'regression' as const, metrics: {} } }
    const error = {
      ...flatCell('b/s', {}),
      status: 'error' as const,
      error: 'boom',
      verdict: { status: 'error' as const, metrics: {} },
    }
    const { results, tally } = assembleResults({
      run,
      cells: [regressed, error],
      missing: { view, selected: (id) => id !== 'd/s' },
      baseline: { sha: 'b', hardware: 'nvidia-gb10', source: 'base.json' },
    })
    expect(results.cells.map((c) => [c.id, c.verdict.status])).toEqual([
      ['a/s', 'regression'],
      ['b/s', 'error'],
      ['c/s', 'missing'],
    ])
    expect(results.cells[0]).toBe(regressed)
    expect(tally).toEqual({ verdict: 'regression', regressions: 1, counts: { regression: 1, error: 1, missing: 1 } })
    expect(results.summary).toEqual({ ...tally, baseline: { sha: 'b', hardware: 'nvidia-gb10', source: 'base.json' } })
    expect(results.run).toBe(run)
  })

  it('passes a run of judged cells through unchanged when nothing is missing', () => {
    const confirmed = {
      ...flatCell('a/s', { decode: 40 }),
      verdict: { status: 'inconclusive' as const, metrics: {}, note: 'regressed once, not confirmed' },
    }
    const { results, tally } = assembleResults({ run, cells: [confirmed] })
    expect(results.cells).toEqual([confirmed])
    expect(tally.verdict).toBe('inconclusive')
  })
})
