import { describe, expect, it } from 'vitest'
import { COMMENT_LIMIT, SUMMARY_LIMIT, commentMarker, renderReport } from '../../src/report/index.js'
import { judgeCell } from '../../src/compare/index.js'
import type { ResultsFile } from '../../src/core/results.js'
import {
  CTX,
  type Kind,
  LOG_TAIL,
  decodeVerdict,
  failed,
  flatCell,
  judged,
  matrix,
  measured,
  resultsFile,
} from '../helpers/builders.js'

/** Table rows (not header or delimiter) of the cells table, by the status mark they start with. */
const tableRows = (md: string) => md.split('\n').filter((l) => /^\| (🔴|💥|🟡|🟢|⚪|🆕|✅) /.test(l))
const rowIds = (md: string) =>
  tableRows(md).map((l) =>
    l
      .split(/(?<!\\)\|/)
      .slice(2, 4)
      .map((s) => s.trim())
      .join('/'),
  )
const leftOut = (md: string) => /left out: (.*)\.\n/.exec(md)?.[1] ?? ''

// 400 cells: every 50th regressed, every 80th (offset 7) failed, every 20th (offset 3) flagged, every 40th (offset 11) improved.
const KIND = (i: number): Kind =>
  i % 50 === 0
    ? 'regression'
    : i % 80 === 7
      ? 'error'
      : i % 20 === 3
        ? 'flagged'
        : i % 40 === 11
          ? 'improvement'
          : 'pass'

describe('a 400-cell matrix', () => {
  const { results, kinds } = matrix(40, 10, KIND)
  const count = (k: Kind) => kinds.filter((x) => x === k).length
  const comment = renderReport(results, CTX, COMMENT_LIMIT)
  const summary = renderReport(results, CTX, SUMMARY_LIMIT)

  it('was judged as built (8 regressions, 5 errors, 20 inconclusive, 10 improvements)', () => {
    expect([count('regression'), count('error'), count('flagged'), count('improvement')]).toEqual([8, 5, 20, 10])
    expect(results.summary).toMatchObject({
      verdict: 'regression',
      regressions: 8,
      counts: { regression: 8, error: 5, inconclusive: 20, improvement: 10, pass: 357 },
    })
  })

  it('fits the comment under 65,536 characters, keeping headline, regressions and errors, and says what it shed', () => {
    expect(comment.length).toBeLessThan(COMMENT_LIMIT)
    expect(comment.startsWith(`${commentMarker(CTX.configPath)}\n`)).toBe(true)
    expect(comment).toContain('### ❌ Regression in 8 of 400 cells')
    expect(comment).toContain('🔴 8 regressed · 💥 5 error · 🟡 20 inconclusive · 🟢 10 improved · ✅ 357 passed')
    const failing = results.cells
      .filter((c) => c.verdict.status === 'regression' || c.verdict.status === 'error')
      .map((c) => c.id)
    for (const id of failing) expect(rowIds(comment)).toContain(id)
    expect(comment.match(/^- 🔴 \*\*/gm)).toHaveLength(8)
    expect(comment.match(/^- 💥 \*\*/gm)).toHaveLength(5)
    expect(leftOut(comment)).toContain('engine log tails; per-round figures; the full metrics')
    expect(comment).toContain(`More is in the job summary of [the workflow run](${CTX.runUrl})`)
    expect(comment).toContain('`results.json`')
    // Whatever rows were shed, the note counts them.
    const rows = tableRows(comment).length
    if (rows < 400) expect(leftOut(comment)).toContain(`the table rows of ${400 - rows} cells`)
  })

  it('keeps the job summary complete under 1 MiB', () => {
    expect(Buffer.byteLength(summary)).toBeLessThan(SUMMARY_LIMIT)
    expect(summary).not.toContain('Shortened')
    expect(tableRows(summary)).toHaveLength(400)
    expect(summary).toContain('<summary>All metrics (steady state, 395 cells)</summary>')
    expect(summary).toContain('<summary>Rounds (395 cells)</summary>')
    expect(summary).toContain('<summary>Flags (20 cells)</summary>')
    expect(summary).toContain('<summary>Failed targets (5 targets)</summary>')
    expect(summary).toContain(LOG_TAIL.trimEnd())
  })

  it('lists errors first, then regressions, inconclusive, then the rest in plan order', () => {
    const order = rowIds(summary).map((id) => results.cells.find((c) => c.id === id)!.verdict.status)
    const rank = ['error', 'regression', 'inconclusive', 'improvement', 'missing', 'new', 'pass']
    expect(order.map((s) => rank.indexOf(s))).toEqual([...order.map((s) => rank.indexOf(s))].sort((a, b) => a - b))
    const passing = rowIds(summary).filter((id) => results.cells.find((c) => c.id === id)!.verdict.status === 'pass')
    expect(passing).toEqual(results.cells.filter((c) => c.verdict.status === 'pass').map((c) => c.id))
  })
})

describe('shedding in stages', () => {
  const { results } = matrix(
    4,
    3,
    (i) => (['regression', 'error', 'flagged', 'pass', 'pass', 'improvement'] as Kind[])[i % 6],
  )

  it('drops log tails, rounds, metrics, the other details, quiet rows, then non-failing rows, then caps the lists', () => {
    const steps: string[] = []
    let limit = Buffer.byteLength(renderReport(results, CTX, SUMMARY_LIMIT))
    expect(renderReport(results, CTX, limit)).not.toContain('left out')
    // Bounded: every step shrinks the limit below the last output.
    for (let i = 0; i < 30 && limit > 600; i++) {
      const text = renderReport(results, CTX, limit - 1)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(limit - 1)
      const shed = leftOut(text).split('; ').filter(Boolean)
      const shape = (x: string) => x.replace(/\d+/g, '#').replace(/cells\b/, 'cell')
      steps.push(...shed.map(shape).filter((x) => !steps.includes(x)))
      limit = Buffer.byteLength(text)
    }
    expect(steps).toEqual([
      'engine log tails',
      'per-round figures',
      'the full metrics',
      'verdict notes, flags, host preflight, engine versions and launch commands',
      'the table rows of # cell that passed, improved, are new or missing',
      'the table rows of # cell that did not regress or fail',
      '# more regressed or failed cell',
    ])
  })

  it('cuts hard only when even the headline does not fit, and still never exceeds the limit', () => {
    for (const max of [400, 250, 120]) {
      const text = renderReport(results, CTX, max)
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(max)
      expect(text.startsWith(commentMarker(CTX.configPath))).toBe(true)
    }
  })
})

describe('headline and provenance', () => {
  const one = (kind: Kind): ResultsFile =>
    judged(
      [
        kind === 'error'
          ? failed('t/s', 'boom')
          : measured(
              't/s',
              { decode: kind === 'regression' ? 40 : 50, ttft: 400 },
              kind === 'flagged' ? { flags: ['x'] } : {},
            ),
      ],
      [kind],
    )

  it.each<[Kind, string]>([
    ['pass', '### ✅ No regression in 1 cell'],
    ['regression', '### ❌ Regression in 1 of 1 cell'],
    ['error', '### 💥 1 of 1 cell could not be measured'],
    ['flagged', '### ⚠️ 1 of 1 cell inconclusive, no regression'],
  ])('%s', (kind, title) => {
    expect(renderReport(one(kind), CTX, COMMENT_LIMIT)).toContain(title)
  })

  it('names both commits and hardware, linked to the repository', () => {
    const text = renderReport(one('pass'), CTX, COMMENT_LIMIT)
    expect(text).toContain(
      `Baseline: [\`aaaaaaa\`](${CTX.repoUrl}/commit/${'a'.repeat(40)}) on \`nvidia-gb10\` (median of 5 default-branch runs from \`llm-bench-data\`, 2026-01-02)`,
    )
    expect(text).toContain(
      `This run: [\`ccccccc\`](${CTX.repoUrl}/commit/${'c'.repeat(40)}) on \`nvidia-gb10\` · [workflow run](${CTX.runUrl})`,
    )
  })

  it('says a first run passes without a baseline', () => {
    const results = one('pass')
    results.cells[0].verdict = { status: 'new', metrics: {}, note: 'first run: no baseline yet, passes' }
    results.summary = { verdict: 'pass', regressions: 0, counts: { new: 1 } }
    const text = renderReport(results, CTX, COMMENT_LIMIT)
    expect(text).toContain('### ✅ No regression in 1 cell')
    expect(text).toContain('Baseline: none yet. The first run passes')
    expect(text).toContain('first run: no baseline yet, passes')
  })

  it('in run mode, reports measurements without a verdict', () => {
    const results = one('pass')
    delete results.summary
    expect(renderReport(results, { ...CTX, mode: 'run' }, COMMENT_LIMIT)).toContain(
      '### 📊 1 cell measured, not compared (mode `run`)',
    )
  })

  it('drops links that are not plain http(s) URLs', () => {
    const text = renderReport(
      one('pass'),
      { ...CTX, runUrl: 'javascript:alert(1)', repoUrl: 'https://x.test/a) [b](c' },
      COMMENT_LIMIT,
    )
    expect(text).not.toContain('javascript:')
    expect(text).not.toContain('x.test')
  })
})

describe('the cells table', () => {
  const cells = (md: string) =>
    tableRows(md)[0]
      .split(/(?<!\\)\|/)
      .map((s) => s.trim())
      .slice(1, 10)

  it('shows each figure with its change against the baseline, bolds the regressed one, and spec-decode acceptance', () => {
    const spec = measured(
      'spec/chat',
      { decode: 44, ttft: 400 },
      { specDecode: { acceptanceRate: 0.714, source: 'vllm /metrics' } },
    )
    // Baseline 50 tok/s, 400 ms, TPOT 20 ms, 400 output tok/s; TPOT and output tok/s are not gated but still get a change.
    expect(cells(renderReport(judged([spec], ['regression']), CTX, COMMENT_LIMIT))).toEqual([
      '🔴 regression',
      'spec',
      'chat',
      'sim',
      'fp8',
      '**44.0 (−12.0%)** · accept 71.4%',
      '400 (0.0%)',
      '22.7 (+13.6%)',
      '352 (−12.0%)',
    ])
  })

  it('names the stat a gate compares when it is not the mean, and shows no change without a baseline', () => {
    const results = judged([measured('p/chat', { decode: 50, ttft: 400, ttftP99: 660 })], ['pass'])
    const c = results.cells[0]
    c.verdict = judgeCell(
      c,
      { history: [], results: resultsFile([flatCell('p/chat', { decode: 50, ttft: 400, ttftP99: 600 })]) },
      { ttft: { maxRegression: 0.05, stat: 'p99' } },
    )
    expect(cells(renderReport(results, CTX, COMMENT_LIMIT)).slice(5)).toEqual([
      '50.0 (0.0%)',
      '**660 p99 (+10.0%)**',
      '20.0 (0.0%)',
      '400 (0.0%)',
    ])
    c.verdict = { status: 'new', metrics: {} }
    expect(cells(renderReport(results, CTX, COMMENT_LIMIT)).slice(5)).toEqual(['50.0', '400', '20.0', '400'])
  })
})

describe('inconclusive cells', () => {
  it('are listed right after regressions and errors, each with what would decide it', () => {
    const undecided = (id: string, needs: 'rounds' | 'quieter-box' | 'baseline' | 'launches', more?: number) => ({
      ...flatCell(id, { decode: 50 }),
      verdict: decodeVerdict(
        'inconclusive',
        { current: 47, baseline: 50, delta: -0.06, reason: 'decode tok/s -6.0% within noise (±7.0%)' },
        { needs, ...(needs === 'launches' ? { moreLaunches: more } : { moreRounds: more }) },
      ),
    })
    const flagged = {
      ...flatCell('f/s', { decode: 50 }),
      flags: ['lengths-missed: output 100/128'],
      verdict: { status: 'inconclusive' as const, metrics: {}, undecided: ['lengths-missed: output 100/128'] },
    }
    const regressed = {
      ...flatCell('r/s', { decode: 40 }),
      verdict: decodeVerdict('regression', { current: 40, baseline: 50, delta: -0.2, reason: '-20.0% > 5%' }),
    }
    const results: ResultsFile = {
      ...resultsFile([
        regressed,
        undecided('a/s', 'rounds', 3),
        undecided('b/s', 'quieter-box'),
        undecided('c/s', 'baseline'),
        undecided('d/s', 'launches', 2),
        flagged,
      ]),
      summary: { verdict: 'regression', regressions: 1, counts: { regression: 1, inconclusive: 5 } },
    }
    const md = renderReport(results, CTX, COMMENT_LIMIT)
    const list = md.slice(md.indexOf('#### Inconclusive'))
    expect(md.indexOf('#### Regressions')).toBeLessThan(md.indexOf('#### Inconclusive'))
    expect(md.indexOf('#### Inconclusive')).toBeLessThan(md.indexOf('| '))
    expect(list).toContain('**a/s**: decode tok/s -6.0% within noise (±7.0%) — needs 3 more warm rounds')
    expect(list).toContain('**b/s**: decode tok/s -6.0% within noise (±7.0%) — needs a quieter box')
    expect(list).toContain('**c/s**: decode tok/s -6.0% within noise (±7.0%) — needs more default-branch runs')
    expect(list).toContain('**d/s**: decode tok/s -6.0% within noise (±7.0%) — needs 2 more launches per arm')
    expect(list).toContain('**f/s**: lengths-missed: output 100/128 — needs the requested workload')
    // The reason names its metric once, and says what it needs at most once.
    expect(list).not.toMatch(/decode decode|needs [^;\n]*needs /)
  })

  it('do not repeat what the reason already says it needs', () => {
    const reason =
      'decode tok/s −1.0%: noise ±20.0% is too wide for the limit 5%; the reference is uncertain by ±9.0%: needs more default-branch runs'
    const cell = {
      ...flatCell('u/s', { decode: 50 }),
      verdict: decodeVerdict(
        'inconclusive',
        { current: 49.5, baseline: 50, delta: -0.01, reason },
        { needs: 'baseline' },
      ),
    }
    const md = renderReport(
      { ...resultsFile([cell]), summary: { verdict: 'inconclusive', regressions: 0, counts: { inconclusive: 1 } } },
      CTX,
      COMMENT_LIMIT,
    )
    // The reason as the verdict words it, its values base → head in front of the change (figure-text.ts).
    expect(md).toContain(`**u/s**: ${reason.replace('decode tok/s ', 'decode tok/s 50.0 → 49.5 tok/s, ')}\n`)
  })
})
