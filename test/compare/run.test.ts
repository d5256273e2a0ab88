import { describe, expect, it } from 'vitest'
import {
  NOT_MEASURED_NOTE,
  confirmCell,
  confirmVerdict,
  judgeCell,
  missingCells,
  needsConfirmation,
  runVerdict,
  type BaselineView,
} from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult, CellVerdict, CellVerdictStatus } from '../../src/core/results.js'
import { type Figures, cell, flatCell, historyEntry, resultsFile, round } from '../helpers/builders.js'

const withVerdict = (id: string, status: CellVerdictStatus): CellResult => ({
  ...flatCell(id, {}),
  verdict: { status, metrics: {} },
})

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

  it.each<[string, CellVerdictStatus[], string]>([
    ['accepted regressions pass the run', ['regression', 'pass', 'regression'], 'pass'],
    ['an error still fails it', ['regression', 'error'], 'error'],
    ['an inconclusive cell still says so', ['regression', 'inconclusive'], 'inconclusive'],
  ])('with the benchmark-accept label: %s', (_name, statuses, verdict) => {
    const tally = runVerdict(
      statuses.map((s, i) => withVerdict(`t${i}/s`, s)),
      { by: 'maintainer-1' },
    )
    expect(tally.verdict).toBe(verdict)
    expect(tally.regressions).toBe(0)
    expect(tally.accepted).toEqual({ cells: statuses.filter((s) => s === 'regression').length, by: 'maintainer-1' })
    expect(tally.counts.regression).toBe(statuses.filter((s) => s === 'regression').length)
  })

  it('acceptance without a regression changes nothing', () => {
    expect(runVerdict([withVerdict('a/s', 'pass')], {})).toEqual({
      verdict: 'pass',
      regressions: 0,
      counts: { pass: 1 },
    })
  })
})

describe('missingCells', () => {
  const measured = ['a/chat', 'b/chat', 'c/long'].map((id) => flatCell(id, { decode: 50 }))
  const leftover: CellResult = {
    ...flatCell('old/chat', {}),
    metrics: null,
    rounds: [],
    verdict: { status: 'missing', metrics: {} },
  }
  const view: BaselineView = {
    results: resultsFile([...measured, leftover]),
    history: [historyEntry([flatCell('h/only', {})], ['decode_tps.mean'])],
  }

  it('lists baseline cells not run and still selected, as ok/metrics-null/missing, which pass', () => {
    const cells = missingCells(view, new Set(['a/chat']), (id) => !id.startsWith('c/'))
    expect(cells.map((c) => c.id)).toEqual(['b/chat', 'h/only'])
    for (const c of cells) {
      expect(c).toMatchObject({
        status: 'ok',
        metrics: null,
        error: null,
        verdict: { status: 'missing', note: NOT_MEASURED_NOTE },
      })
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

describe('confirmation: per metric, on both measurements pooled', () => {
  const gate: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' }, ttft: { maxRegression: 0.1, stat: 'mean' } }
  const view: BaselineView = { history: [], results: resultsFile([flatCell('t/s', { decode: 50, ttft: 400 })]) }
  const measured = (f: Figures): CellResult => {
    const c = flatCell('t/s', { decode: 50, ttft: 400, ...f })
    return { ...c, verdict: judgeCell(c, view, gate) }
  }

  it('a decode regression the re-measurement repeats stays one, judged on the pooled rounds', () => {
    const first = measured({ decode: 44 })
    expect(needsConfirmation(first.verdict)).toBe(true)
    const verdict = confirmCell(first, [measured({ decode: 45 })], view, gate)
    expect(verdict).toMatchObject({ status: 'regression', confirmed: 1 })
    // Two steady rounds at 44 and two at 45: the figure that decided is the pooled one.
    expect(verdict.metrics.decode).toMatchObject({ status: 'regression', current: 44.5 })
    expect(verdict.note).toMatch(/confirmed by re-measurement 1: decode tok\/s −11\.0%.*\(confirmed\)$/)
  })

  it('a regression the re-measurement does not repeat is decided by the pooled sample, not by the first alone', () => {
    const verdict = confirmCell(measured({ decode: 44 }), [measured({ decode: 50 })], view, gate)
    expect(verdict.status).not.toBe('regression')
    expect(verdict.metrics.decode?.current).toBe(47)
    expect(verdict.note).toMatch(/regressed once, not confirmed by re-measurement 1: .*\(first decode tok\/s −12\.0%/)
  })

  it('a decode regression is confirmed by decode only: a TTFT regression in the re-measurement does not stand in', () => {
    const verdict = confirmCell(measured({ decode: 44 }), [measured({ ttft: 520 })], view, gate)
    expect(verdict.metrics.decode?.status).not.toBe('regression')
    // TTFT did not regress the first time: it keeps its first verdict.
    expect(verdict.metrics.ttft?.status).toBe('pass')
    expect(verdict.status).not.toBe('regression')
  })

  it('the same fold on a re-measurement judged alone (what the pipeline passes today) is per metric too', () => {
    const folded = confirmVerdict(measured({ decode: 44 }).verdict, measured({ ttft: 520 }).verdict)
    expect(folded.metrics.decode?.status).toBe('pass')
    expect(folded.status).toBe('pass')
  })

  it('a re-measurement that fails makes the cell an error, neither confirmed nor cleared', () => {
    const failed: CellResult = { ...flatCell('t/s', {}), status: 'error', error: 'engine exited', metrics: null }
    expect(confirmCell(measured({ decode: 44 }), [failed], view, gate)).toMatchObject({
      status: 'error',
      note: /re-measurement 1 failed \(engine exited\)/,
    })
    const errored: CellVerdict = { status: 'error', metrics: {}, note: 'engine exited' }
    expect(confirmVerdict(measured({ decode: 44 }).verdict, errored)).toMatchObject({
      status: 'error',
      note: /re-measurement failed \(engine exited\)/,
    })
  })

  it('counts repeated confirmations (confirm: 2) and leaves non-regressions alone', () => {
    const first = measured({ decode: 44 })
    expect(confirmCell(first, [measured({ decode: 45 }), measured({ decode: 44.5 })], view, gate)).toMatchObject({
      status: 'regression',
      confirmed: 2,
    })
    const pass = measured({ decode: 50 })
    expect(needsConfirmation(pass.verdict)).toBe(false)
    expect(confirmVerdict(pass.verdict, measured({ decode: 40 }).verdict)).toBe(pass.verdict)
  })

  it('re-launched re-measurements (confirm-fresh) count one launch each in the pooled noise', () => {
    // Rounds ±1 % so the launch part is what differs between the two readings.
    const noisy = (d: number): CellResult => {
      const c = cell('t/s', [
        round(0, false, { decode: d }),
        round(1, true, { decode: d * 0.99 }),
        round(2, true, { decode: d * 1.01 }),
      ])
      return { ...c, verdict: judgeCell(c, view, gate) }
    }
    const same = confirmCell(noisy(46), [noisy(46)], view, gate)
    const fresh = confirmCell(noisy(46), [noisy(46)], view, gate, { fresh: true })
    expect(fresh.metrics.decode!.band!).toBeLessThan(same.metrics.decode!.band!)
  })
})
