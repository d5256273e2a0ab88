/**
 * One set of numbers: after a confirmation the verdict is decided on the first measurement pooled with its
 * re-measurement (compare/confirm.ts), and every figure the report shows for a gated metric is that verdict's, bold
 * exactly when it failed; the compact table and the why read base → head. A figure no gate compares is read from the
 * same pooled rounds (`pooled`); from a file of an earlier release, which keeps none, it is the first measurement's
 * and says so. The demo's run through the pipeline: test/report/figures-demo.slow.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { confirmCell, judgeCell, runVerdict, type BaselineView } from '../../src/compare/index.js'
import { readCellMetric } from '../../src/core/metrics.js'
import type { CellResult } from '../../src/core/results.js'
import { COMMENT_LIMIT, SUMMARY_LIMIT, renderReport } from '../../src/report/index.js'
import { renderLeaderboard } from '../../src/report/pages/leaderboard.js'
import { CTX, GATE, flatCell, measured, resultsFile, type Figures } from '../helpers/builders.js'
import { cellRows, leaderboardDeltas, tableFigures, whyFigures } from '../helpers/report-figures.js'
import { withPooled } from '../../src/target-run/measure-cell.js'

/** Every cell's baseline: decode 50 tok/s, TTFT 720 ms (limits: decode 5 %; TTFT 10 % and 50 ms). */
const BASELINE: BaselineView = {
  history: [],
  results: resultsFile(
    ['t/ttft', 't/decode', 't/faster'].map((id) => flatCell(id, { decode: 50, ttft: 720 })),
    'a'.repeat(40),
  ),
}

/**
 * The cell judged on its first measurement, then, while it looks regressed, on it pooled with `again`, with the
 * pooled block the target runner adds (target-run/measure-cell.ts).
 */
function decided(id: string, first: Figures, again: Figures[]): { cell: CellResult; first: CellResult } {
  const once = measured(id, first)
  once.verdict = judgeCell(once, BASELINE, GATE)
  const remeasured = again.map((f) => measured(id, f))
  const verdict = confirmCell(once, remeasured, BASELINE, GATE)
  const cell = { ...once, verdict }
  return { cell: remeasured.length ? withPooled(cell, [once, ...remeasured]) : cell, first: once }
}

// TTFT 796 ms first (+10.6 %, +76 ms: past both limits), 765 ms again: pooled 780.5 ms, +8.4 %, within the limit.
const ttft = decided('t/ttft', { decode: 50, ttft: 796 }, [{ decode: 50, ttft: 765 }])
// Decode 44 tok/s first (−12 %), 46 again: pooled 45, −10 %, a confirmed regression.
const decode = decided('t/decode', { decode: 44, ttft: 720 }, [{ decode: 46, ttft: 720 }])
// Decode 56 tok/s (+12 %): an improvement, never confirmed, never bold.
const faster = decided('t/faster', { decode: 56, ttft: 720 }, [])

const cells = [ttft.cell, decode.cell, faster.cell]
const results = resultsFile(cells, 'c'.repeat(40))
results.summary = {
  ...runVerdict(cells),
  baseline: { sha: 'a'.repeat(40), hardware: 'cpu', source: 'file', samples: 1, date: '2026-01-02T03:04:05Z' },
}
const comment = renderReport(results, { ...CTX, form: 'comment' }, COMMENT_LIMIT)
const summary = renderReport(results, CTX, SUMMARY_LIMIT)

describe('figures after a confirmation', () => {
  it('the runs are the ones the report must tell apart: the first measurement and the verdict disagree', () => {
    expect(ttft.first.verdict.metrics.ttft?.status).toBe('regression')
    expect(readCellMetric(ttft.cell, 'ttft', 'mean')).toBeCloseTo(796, 6)
    expect(ttft.cell.verdict).toMatchObject({ status: 'pass', confirmed: 1 })
    expect(ttft.cell.verdict.metrics.ttft).toMatchObject({ status: 'pass', current: 780.5 })
    expect(decode.cell.verdict).toMatchObject({ status: 'regression', confirmed: 1 })
    expect(decode.cell.verdict.metrics.decode).toMatchObject({ status: 'regression', current: 45 })
    expect(faster.cell.verdict.status).toBe('improvement')
  })

  it.each([
    ['comment', comment],
    ['job summary', summary],
  ])('every figure of the %s tables is the verdict’s, bold exactly where it failed', (_, md) => {
    const { problems, compared, cellsShown } = tableFigures(md, results)
    expect(problems).toEqual([])
    expect(cellsShown).toEqual(new Set(cells.map((c) => c.id)))
    // decode and TTFT of three cells in the table of every cell, and of the two the compact table shows.
    expect(compared).toBe(md === comment ? 6 + 4 : 6)
  })

  /** The text of a column of the cell's row in the table of every cell, wide or folded narrow. */
  const everyCell = (id: string, column: string) =>
    cellRows(summary)
      .find((r) => !r.compact && r.id === id)!
      .columns.get(column)

  it('the TTFT that passed once pooled reads +8.4 %, not bold, where the first measurement said +10.6 %', () => {
    expect(everyCell('t/ttft', 'TTFT ms')).toMatch(/^781(?: |<br>)\(\+8\.4%\)$/)
    expect(everyCell('t/ttft', 'Decode tok/s')).toMatch(/^50\.0(?: |<br>)\(0\.0%\)$/)
  })

  it('the compact table reads base → head, the confirmed regression bold at its pooled change', () => {
    const row = cellRows(comment).find((r) => r.compact && r.id === 't/decode')!
    expect(row.columns.get('Decode tok/s')).toBe('**50.0&nbsp;→&nbsp;45.0, −10.0%**')
    expect(row.columns.get('TTFT ms')).toBe('720&nbsp;→&nbsp;720, 0.0%')
  })

  it('a figure no gate compares is read from the rounds the verdict pooled, unlabelled', () => {
    // TPOT 22.7 ms in the first measurement's rounds (+13.6 % on 20 ms), 21.7 ms in the re-measurement's.
    expect(decode.cell.pooled).toMatchObject({ measurements: 2, rounds: 4 })
    const tpot = readCellMetric({ metrics: decode.cell.pooled!.metrics }, 'tpot', 'mean')!
    expect(tpot).toBeCloseTo((1000 / 44 + 1000 / 46) / 2, 1)
    const change = `+${(((tpot - 20) / 20) * 100).toFixed(1)}%`
    expect(change).toBe('+11.2%')
    expect(everyCell('t/decode', 'TPOT ms')).toMatch(new RegExp(`^${tpot.toFixed(1)}(?: |<br>)\\(\\${change}\\)$`))
    // The details of the measurement (every statistic, its rounds) are still the first's, and say so.
    const details = '**t/decode** (first measurement; the verdict pooled it with 1 re-measurement)\n\n| '
    expect(summary.split(details)).toHaveLength(3)
    expect(summary).toContain('**t/faster**\n\n| ')
    expect(everyCell('t/faster', 'TPOT ms')).toMatch(/^[\d.]+(?: |<br>)\([−+]?[\d.]+%\)$/)
  })

  it('from a file of an earlier release, with no pooled block, it is the first measurement’s and says so', () => {
    const older = resultsFile(
      cells.map(({ pooled: _pooled, ...c }) => c),
      'c'.repeat(40),
    )
    older.summary = results.summary
    const rows = cellRows(renderReport(older, CTX, SUMMARY_LIMIT))
    const row = rows.find((r) => !r.compact && r.id === 't/decode')!
    expect(row.columns.get('TPOT ms')).toMatch(/^[\d.]+(?: |<br>)\(\+13\.6%\)(?: · |<br>)first measurement$/)
  })

  it('the why lines and the Verdicts section say the verdict’s values, base → head', () => {
    const why = whyFigures(summary, results)
    expect(why.problems).toEqual([])
    // The regression list (decode), and the Verdicts section: at least each cell's first clause (a clause several
    // cells repeat is said once, as a note under the list).
    expect(why.compared).toBeGreaterThanOrEqual(1 + 3)
    expect(summary).toContain('- 🔴 **t/decode**: decode tok/s 50.0 → 45.0 tok/s, −10.0% (limit 5%')
    expect(summary).toMatch(
      /^- ✅ \*\*t\/ttft\*\*: .*; ✅ TTFT 720 → 781 ms, \+8\.4% \/ \+61 ms \(limit 10% and 50 ms/m,
    )
    expect(whyFigures(comment, results).problems).toEqual([])
  })

  it('the leaderboard’s Δ columns are the verdict’s changes', () => {
    const { problems, compared } = leaderboardDeltas(renderLeaderboard(results), results)
    expect(problems).toEqual([])
    expect(compared).toBe(6)
  })
})
