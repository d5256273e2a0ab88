/**
 * Runs without a baseline: the headline of a `run` that measured nothing says every cell failed, a mix how many;
 * the note every cell shares (not compared, first run, the A/B that ran nowhere) is said once at the top, never on
 * each row or verdict line.
 */
import { describe, expect, it } from 'vitest'
import { judgeCell, runVerdict } from '../../src/compare/index.js'
import { abNotRun } from '../../src/compare/ab-verdict.js'
import { notComparedVerdict, type CellResult, type ResultsFile } from '../../src/core/results.js'
import { COMMENT_LIMIT, SUMMARY_LIMIT, renderReport } from '../../src/report/index.js'
import { runNotes } from '../../src/report/markdown/run-notes.js'
import { CTX, GATE, failed, measured, resultsFile } from '../helpers/builders.js'

const RUN = { ...CTX, mode: 'run' }
const ids = (n: number) => Array.from({ length: n }, (_, i) => `t${i % 4}/s${Math.floor(i / 4)}`)
const ok = (id: string): CellResult => ({ ...measured(id, { decode: 50, ttft: 400 }), verdict: notComparedVerdict() })
const broken = (id: string): CellResult => ({
  ...failed(id, 'not ready after 20m (exit 1)'),
  verdict: { status: 'error', metrics: {}, note: 'not ready after 20m (exit 1)' },
})
const count = (text: string, part: string) => text.split(part).length - 1

describe('the headline of a run that compares nothing', () => {
  it.each([
    {
      what: 'every cell failed',
      cells: ids(3).map(broken),
      want: '### ❌ Every cell failed: 3 of 3 cells could not be measured (mode `run`)',
    },
    {
      what: 'some failed',
      cells: [...ids(3).map(ok), broken('x/s')],
      want: '### ❌ 1 of 4 cells failed; 3 measured, not compared (mode `run`)',
    },
    { what: 'none failed', cells: ids(3).map(ok), want: '### 📊 3 cells measured, not compared (mode `run`)' },
  ])('$what', ({ cells, want }) => {
    for (const form of ['comment', 'full'] as const) {
      const text = renderReport(resultsFile(cells), { ...RUN, form }, COMMENT_LIMIT)
      expect(text.split('\n')[2]).toBe(want)
    }
  })
})

describe('a note every cell shares', () => {
  it('a run of 16 cells says "not compared with a baseline" nowhere but the headline', () => {
    const cells = [...ids(15).map(ok), broken('x/s')]
    for (const form of ['comment', 'full'] as const) {
      const text = renderReport(resultsFile(cells), { ...RUN, form }, SUMMARY_LIMIT)
      expect(count(text, 'not compared with a baseline'), form).toBe(0)
      expect(count(text, 'not compared'), form).toBe(1)
      // The failed cell keeps its own reason.
      expect(text).toContain('not ready after 20m (exit 1)')
    }
  })

  it('a first compare run says there is no baseline once, and nothing of it on a row or a verdict line', () => {
    // As the pipeline leaves them: judged against no baseline, then no A/B (a local run names no base commit).
    const cells = ids(16).map((id) => {
      const cell = measured(id, { decode: 50, ttft: 400 })
      cell.verdict = judgeCell(cell, { history: [] }, GATE)
      return abNotRun(cell, 'the local run names no base commit to measure')
    })
    const results: ResultsFile = { ...resultsFile(cells), summary: runVerdict(cells) }
    const comment = renderReport(results, { ...CTX, form: 'comment' }, COMMENT_LIMIT)
    const summary = renderReport(results, CTX, SUMMARY_LIMIT)
    for (const text of [comment, summary]) {
      expect(count(text, 'first run: no baseline yet')).toBe(0)
      expect(count(text, 'Baseline: none yet. The first run passes')).toBe(1)
      expect(count(text, 'the stored-baseline verdict stands')).toBe(0)
      expect(count(text, 'the local run names no base commit to measure')).toBe(1)
    }
    // With nothing of their own to say, the cells have no verdict lines.
    expect(summary).not.toContain('<summary>Verdicts')
  })

  it('a clause the top does not say is said once, in one line; what differs stays on its cell', () => {
    const cells = ids(3).map((id, i) => ({
      ...measured(id, { decode: 50, ttft: 400 }),
      verdict: { status: 'new' as const, metrics: {}, note: `own ${i}; measured on a spare box` },
    }))
    const { cells: stripped, line } = runNotes(cells)
    expect(line).toBe('Every cell: measured on a spare box')
    expect(stripped.map((c) => c.verdict.note)).toEqual(['own 0', 'own 1', 'own 2'])
    // One cell is not a run.
    expect(runNotes(cells.slice(0, 1)).line).toBeUndefined()
  })
})
