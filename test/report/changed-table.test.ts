import { describe, expect, it } from 'vitest'
import { COMMENT_LIMIT, SUMMARY_LIMIT, renderReport } from '../../src/report/index.js'
import { CHANGED_ROWS, changedTable } from '../../src/report/markdown/changed-table.js'
import { clausesOf, footnoted } from '../../src/report/markdown/reasons.js'
import { workspaceRelative } from '../../src/report/markdown/workspace-paths.js'
import { bySeverity } from '../../src/report/severity.js'
import type { CellResult } from '../../src/core/results.js'
import { CTX, type Kind, matrix } from '../helpers/builders.js'

const COMMENT = { ...CTX, form: 'comment' as const }
/** Rows of the first markdown table in `md` (header and delimiter left out). */
const firstTable = (md: string): string[] => {
  const lines = md.split('\n')
  const start = lines.findIndex((l) => l.startsWith('| '))
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'))
  return lines.slice(start + 2, end)
}
const columns = (row: string): string[] => row.split(/(?<!\\)\|/).slice(1, -1)

describe('the comment', () => {
  const KIND = (i: number): Kind => (i === 7 || i === 31 ? 'regression' : i === 12 ? 'error' : 'pass')
  const { results } = matrix(10, 5, KIND)
  const comment = renderReport(results, COMMENT, COMMENT_LIMIT)
  const summary = renderReport(results, CTX, SUMMARY_LIMIT)

  it('opens with one compact table of the cells that need a look, five columns, errors first', () => {
    const rows = firstTable(comment)
    expect(rows).toHaveLength(3)
    expect(rows.map((r) => columns(r).length)).toEqual([5, 5, 5])
    expect(rows.map((r) => r.slice(2, 4))).toEqual(['💥', '🔴', '🔴'])
    expect(columns(rows[1])[0]).toMatch(/^ 🔴 \*\*qwen38-27b-q1-vllm · chat-2k\*\*<br>sim · fp8 $/)
    expect(columns(rows[1])[4]).toMatch(/decode tok\/s 50\.0 → 44\.0 tok\/s, −12\.0% \(limit 5%, noise ±[\d.]+%\)/)
    expect(comment.indexOf('| Cell |')).toBeLessThan(comment.indexOf('<details>'))
  })

  it('counts the cells within limits and folds the table of every cell', () => {
    expect(comment).toContain('✅ 47 cells within limits')
    // Folded, the narrow table (every-cell.ts): the cell in one column, then one per headline metric.
    expect(comment).toMatch(
      /<details>\n<summary>Every cell \(50 rows\)<\/summary>\n\n\| Cell \| Decode tok\/s \| TTFT ms \|/,
    )
    expect(comment).not.toContain('#### Regressions')
  })

  it('leaves the job summary its lists and the open full table', () => {
    expect(summary).toContain('#### Regressions')
    expect(summary).toMatch(/^\| Status \| Target \| Scenario \| Engine \| Quant \|/m)
    expect(summary).not.toContain('| Cell |')
    expect(summary).not.toContain('Every cell (')
  })

  it(`keeps ${CHANGED_ROWS} rows and counts the rest`, () => {
    const many = matrix(40, 10, (i) => (i % 10 === 0 ? 'regression' : i % 10 === 5 ? 'flagged' : 'pass')).results
    const text = renderReport(many, COMMENT, COMMENT_LIMIT)
    expect(firstTable(text)).toHaveLength(CHANGED_ROWS)
    // 40 regressions: every row shown is one, the inconclusive cells are counted under the table.
    expect(firstTable(text).every((r) => r.startsWith('| 🔴'))).toBe(true)
    expect(text).toContain(`… and ${80 - CHANGED_ROWS} more cells that need a look`)
  })

  it('says nothing of a compact table when every cell passed', () => {
    const { results: fine } = matrix(2, 2, () => 'pass')
    expect(changedTable(bySeverity(fine.cells))).toBeUndefined()
    const text = renderReport(fine, COMMENT, COMMENT_LIMIT)
    expect(text).toContain('✅ 4 cells within limits.')
    expect(text).not.toContain('| Why |')
  })

  it('escapes what the engine and the config said in the cell column', () => {
    const hostile = matrix(1, 2, (i) => (i === 0 ? 'regression' : 'pass')).results
    const cell = hostile.cells[0] as CellResult
    cell.target = 'evil|<img src=x>@octocat'
    const row = firstTable(renderReport(hostile, COMMENT, COMMENT_LIMIT))[0]
    expect(row).toContain('evil\\|&lt;img src=x&gt;@&#8203;octocat')
    expect(columns(row)).toHaveLength(5)
  })
})

describe('why, in the compact table', () => {
  const regressed = () => {
    const { results } = matrix(1, 2, (i) => (i === 0 ? 'regression' : 'pass'))
    return { results, cell: results.cells[0] as CellResult }
  }
  const why = (results: ReturnType<typeof regressed>['results']) =>
    columns(firstTable(renderReport(results, COMMENT, COMMENT_LIMIT))[0])[4].trim()

  it('names the counter that moved instead of the limit when the engine explains the regression', () => {
    const { results, cell } = regressed()
    cell.verdict.serverChanges = ['prefix-cache hit rate 87.5 % → 0 %']
    expect(why(results)).toBe('server: prefix-cache hit rate 87.5 % → 0 %')
    // The full report keeps every reason.
    expect(renderReport(results, CTX, SUMMARY_LIMIT)).toMatch(/limit 5%.*server: prefix-cache hit rate 87\.5 % → 0 %/)
  })

  it('names the spec-decode factors of a decode regression split into them', () => {
    const { results, cell } = regressed()
    const decode = cell.verdict.metrics.decode!
    decode.factors = [
      { ...decode, metric: 'accept-length', delta: -0.13, band: 0.02 },
      { ...decode, metric: 'step-time', delta: 0.006, band: 0.01, status: 'pass' },
    ]
    expect(why(results)).toMatch(/^decode −12\.0%: acceptance length −13\.0%, step time \+0\.6%$/)
  })

  it('keeps the limit and noise when nothing else explains it', () => {
    const { results } = regressed()
    expect(why(results)).toMatch(
      /^decode tok\/s 50\.0 → 44\.0 tok\/s, −12\.0% \(limit 5%, noise ±[\d.]+%\): more than twice the limit$/,
    )
  })
})

describe('footnoted', () => {
  const NOISE = 'launch-to-launch noise is assumed ±1.5% until more default-branch runs measure it'

  it('says a long clause two lines repeat once, as a numbered note', () => {
    const { lines, notes } = footnoted([
      [`decode tok/s −6.5% (limit 5%) but within noise ±30%; ${NOISE}`],
      [`decode tok/s +9.5%: noise ±23% is too wide; ${NOISE}`],
      ['decode tok/s +4.6%: noise ±10.5% is too wide for the limit 5%'],
    ])
    expect(lines).toEqual([
      'decode tok/s −6.5% (limit 5%) but within noise ±30% <sup>1</sup>',
      'decode tok/s +9.5%: noise ±23% is too wide <sup>1</sup>',
      'decode tok/s +4.6%: noise ±10.5% is too wide for the limit 5%',
    ])
    expect(notes).toEqual([`<sup>1</sup> ${NOISE}`])
  })

  it('keeps short repeated clauses and clauses said once on their line', () => {
    const { lines, notes } = footnoted([['confirmed 2×', NOISE], ['confirmed 2×']])
    expect(lines).toEqual([`confirmed 2×; ${NOISE}`, 'confirmed 2×'])
    expect(notes).toEqual([])
  })

  it('splits clauses outside brackets only', () => {
    expect(
      clausesOf("baseline: file; A/B not run: no base (a pull request's base; on the CLI, --base REV); x"),
    ).toEqual(['baseline: file', "A/B not run: no base (a pull request's base; on the CLI, --base REV)", 'x'])
    expect(clausesOf('a) b; c')).toEqual(['a) b', 'c'])
  })

  it('escapes what stays and what moves', () => {
    const { lines, notes } = footnoted([['a | b', `<b>${NOISE}</b>`], [`<b>${NOISE}</b>`]])
    expect(lines[0]).toBe('a \\| b <sup>1</sup>')
    expect(notes[0]).toContain('&lt;b&gt;')
  })
})

describe('workspaceRelative', () => {
  it('writes paths under the workspace relative to it and the Node binary as node', () => {
    const text =
      'run /usr/local/bin/node /home/runner/work/r/r/dist/cli/index.js sim in /home/runner/work/r/r; /home/runner/work/r/r-2/x'
    expect(workspaceRelative(text, '/home/runner/work/r/r/', '/usr/local/bin/node')).toBe(
      'run node dist/cli/index.js sim in .; /home/runner/work/r/r-2/x',
    )
  })

  it('leaves the text alone without a usable workspace', () => {
    expect(workspaceRelative('/a/b', undefined, '')).toBe('/a/b')
    expect(workspaceRelative('/a/b', '/', '')).toBe('/a/b')
    expect(workspaceRelative('/a/b', 'a', '')).toBe('/a/b')
  })
})
