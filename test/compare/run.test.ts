import { describe, expect, it } from 'vitest'
import { NOT_MEASURED_NOTE, confirmVerdict, judgeCell, missingCells, needsConfirmation, runVerdict, type BaselineView } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult, CellVerdict, CellVerdictStatus } from '../../src/core/results.js'
import { flatCell, historyEntry, resultsFile } from './fixtures.js'

const withVerdict = (id: string, status: CellVerdictStatus): CellResult => ({ ...flatCell(id, {}), verdict: { status, metrics: {} } })

describe('runVerdict', () => {
  it.each<[string, CellVerdictStatus[], string, number]>([
    ['all pass', ['pass', 'pass'], 'pass', 0],
    ['new, improvement and missing pass', ['new', 'improvement', 'missing'], 'pass', 0],
    ['one inconclusive', ['pass', 'inconclusive'], 'inconclusive', 0],
    ['an error beats inconclusive', ['inconclusive', 'error', 'pass'], 'error', 0],
    ['a regression beats an error', ['error', 'regression', 'regression', 'inconclusive'], 'regression', 2],
    ['no cells', [], 'pass', 0],
  ])('%s', (_name, statuses, verdict, regressions) => {
    const tally = runVerdict(statuses.map((s, i) => withVerdict(`t${i}/s`, s)))
    expect(tally.verdict).toBe(verdict)
    expect(tally.regressions).toBe(regressions)
    const expected: Record<string, number> = {}
    for (const s of statuses) expected[s] = (expected[s] ?? 0) + 1
    expect(tally.counts).toEqual(expected)
  })
})

describe('missingCells', () => {
  const measured = ['a/chat', 'b/chat', 'c/long'].map((id) => flatCell(id, { decode: 50 }))
  const leftover: CellResult = { ...flatCell('old/chat', {}), metrics: null, rounds: [], verdict: { status: 'missing', metrics: {} } }
  const view: BaselineView = { results: resultsFile([...measured, leftover]), history: [historyEntry([flatCell('h/only', {})], ['decode_tps.mean'])] }

  it('lists baseline cells not run and still selected, as ok/metrics-null/missing, which pass', () => {
    const cells = missingCells(view, new Set(['a/chat']), (id) => !id.startsWith('c/'))
    expect(cells.map((c) => c.id)).toEqual(['b/chat', 'h/only'])
    for (const c of cells) {
      expect(c).toMatchObject({ status: 'ok', metrics: null, error: null, verdict: { status: 'missing', note: NOT_MEASURED_NOTE } })
    }
    expect(cells[1]).toMatchObject({ target: 'h', scenario: 'only' })
    expect(runVerdict(cells).verdict).toBe('pass')
    expect(judgeCell(cells[0], view, { decode: { maxRegression: 0.05, stat: 'mean' } }).status).toBe('missing')
  })

  it('does not report a baseline leftover that was itself not measured', () => {
    expect(missingCells(view, new Set(), () => true).map((c) => c.id)).not.toContain('old/chat')
  })

  it('is empty without a baseline', () => {
    expect(missingCells({ history: [] }, new Set(), () => true)).toEqual([])
  })
})

describe('confirmation', () => {
  const gate: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' } }
  const view: BaselineView = { history: [], results: resultsFile([flatCell('t/s', { decode: 50 })]) }
  const judge = (decode: number) => judgeCell(flatCell('t/s', { decode }), view, gate)

  it.each<[string, number, number, string, RegExp]>([
    ['a regression the re-measurement repeats stays a regression', 44, 45, 'regression', /confirmed by re-measurement 1: decode tok\/s −10\.0%/],
    ['a regression the re-measurement does not repeat is inconclusive', 44, 49.5, 'inconclusive', /regressed once, not confirmed: re-measurement 1 was pass/],
  ])('%s', (_name, first, second, status, note) => {
    const v1 = judge(first)
    expect(needsConfirmation(v1)).toBe(true)
    const folded = confirmVerdict(v1, judge(second))
    expect(folded.status).toBe(status)
    expect(folded.confirmed).toBe(1)
    expect(folded.note).toMatch(note)
    // The figures stay the first measurement's, which the report shows.
    expect(folded.metrics.decode?.current).toBe(44)
    expect(needsConfirmation(folded)).toBe(status === 'regression')
    if (status === 'inconclusive') expect(folded.metrics.decode).toMatchObject({ status: 'inconclusive', reason: /not confirmed$/ })
  })

  it('a failed re-measurement cannot confirm', () => {
    const failed: CellVerdict = { status: 'error', metrics: {}, note: 'engine exited' }
    expect(confirmVerdict(judge(44), failed)).toMatchObject({ status: 'inconclusive', note: /re-measurement failed \(engine exited\)/ })
  })

  it('counts repeated confirmations (confirm: 2) and leaves non-regressions alone', () => {
    const twice = confirmVerdict(confirmVerdict(judge(44), judge(45)), judge(44.5))
    expect(twice).toMatchObject({ status: 'regression', confirmed: 2 })
    const pass = judge(50)
    expect(needsConfirmation(pass)).toBe(false)
    expect(confirmVerdict(pass, judge(40))).toBe(pass)
  })
})
