/**
 * Goodput in the report and on the leaderboard: next to output tok/s in the cells table (bold when it regressed),
 * in the regression line, the details and the rounds table, and as a leaderboard column, only for cells whose
 * scenario has an `slo`.
 */
import { describe, expect, it } from 'vitest'
import { judgeCell, runVerdict } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { COMMENT_LIMIT, renderLeaderboard, renderReport } from '../../src/report/index.js'
import { CTX, GATE, measured, resultsFile } from '../helpers/builders.js'

const SLO = { ttftMs: 2000, tpotMs: 80 }
const GOODPUT_GATE: GateConfig = { ...GATE, goodput: { maxDrop: 0.05 } }

/** A measured cell whose steady rounds had these goodput shares (the discarded one the first share). */
function withGoodput(c: CellResult, shares: number[]): CellResult {
  c.rounds.forEach((r, i) => Object.assign(r.metrics, { goodput: shares[Math.max(0, i - 1)], request_goodput: 2 }))
  c.metrics!.goodput = shares.reduce((s, v) => s + v, 0) / shares.length
  c.metrics!.request_goodput = 2
  c.workload = { ...c.workload, slo: SLO }
  return c
}

function report() {
  const base = resultsFile(
    [
      withGoodput(measured('t/chat', { decode: 50, ttft: 400 }), [1, 1]),
      measured('t/plain', { decode: 50, ttft: 400 }),
    ],
    'a'.repeat(40),
  )
  const cells = [
    withGoodput(measured('t/chat', { decode: 50, ttft: 400 }), [0.5, 1]),
    measured('t/plain', { decode: 50, ttft: 400 }),
  ]
  for (const c of cells) c.verdict = judgeCell(c, { history: [], results: base }, GOODPUT_GATE)
  const results = resultsFile(cells, 'c'.repeat(40))
  results.summary = { ...runVerdict(cells), baseline: { sha: 'a'.repeat(40), hardware: 'nvidia-gb10', source: 'file' } }
  return results
}

const row = (md: string, id: string) =>
  md
    .split('\n')
    .find((l) => l.startsWith('| ') && l.includes(`| ${id.split('/')[1]} |`))!
    .split(/(?<!\\)\|/)
    .map((s) => s.trim())

describe('goodput in the report', () => {
  const results = report()
  const md = renderReport(results, CTX, COMMENT_LIMIT)

  it('fails the cell on goodput alone, and the regression line names it', () => {
    expect(results.cells[0].verdict.status).toBe('regression')
    expect(results.cells[0].verdict.metrics.decode?.status).toBe('pass')
    expect(md).toContain('- 🔴 **t/chat**: goodput 100% → 75% (−25 points) (limit 5 points, noise ±')
    expect(md).toMatch(
      /goodput 100% → 75% \(−25 points\) \(limit 5 points, noise ±[\d.]+ points\): more than twice the limit/,
    )
  })

  it('shows goodput and its change in points after output tok/s, bold when it regressed; not for a cell without an slo', () => {
    expect(row(md, 't/chat')[9]).toBe('400 (0.0%) · **goodput 75% (−25 pt)**')
    expect(row(md, 't/plain')[9]).toBe('400 (0.0%)')
  })

  it('gives the SLO with the steady figures, and a goodput column in the rounds of the cell that has one', () => {
    expect(md).toContain('goodput 75% · 2.00 good req/s (SLO: TTFT ≤ 2s, TPOT ≤ 80ms)')
    const rounds = md.slice(md.indexOf('<summary>Rounds'))
    const chat = rounds.slice(rounds.indexOf('**t/chat**'), rounds.indexOf('**t/plain**'))
    const plain = rounds.slice(rounds.indexOf('**t/plain**'))
    expect(chat).toContain('| output tok/s | goodput | duration s |')
    expect(chat).toMatch(/\| 1 \| yes \| 8 \| 0 \| [^\n]* \| 50% \| 3\.00 \|/)
    expect(plain).toContain('| output tok/s | duration s |')
    expect(plain).not.toContain('goodput')
  })
})

describe('goodput on the leaderboard', () => {
  it('is a column, with good req/s and the SLO, when some cell has an slo', () => {
    const html = renderLeaderboard(report())
    const heads = [...html.matchAll(/<button type="button">([^<]*)<\/button>/g)].map((m) => m[1])
    // Shown at once, right after the verdict's Δ columns: the first raw figure is hidden until asked for.
    expect(heads.indexOf('Goodput')).toBe(heads.indexOf('Δ TTFT') + 1)
    expect(html).toContain(
      '<td class="num" data-value="0.75"><span title="SLO: TTFT ≤ 2s, TPOT ≤ 80ms">75%</span><span class="sub">2.00 req/s</span></td>',
    )
  })

  it('has no such column when no cell has one', () => {
    const results = resultsFile([measured('t/plain', { decode: 50, ttft: 400 })])
    expect(renderLeaderboard(results)).not.toContain('Goodput')
  })
})
