/**
 * Severity order (severity.ts) through the real judge and the real renderer: errors, then regressions by how far
 * past its limit the worst regressed metric is, then inconclusive cells, then the rest, in every list of the report.
 */
import { describe, expect, it } from 'vitest'
import { COMMENT_LIMIT, SUMMARY_LIMIT, renderReport } from '../../src/report/index.js'
import { bySeverity, pastLimit, severity } from '../../src/report/severity.js'
import type { CellResult, MetricVerdict } from '../../src/core/results.js'
import { readResults } from '../../src/store/index.js'
import { CTX, failed, judged, measured, type Kind } from '../helpers/builders.js'

/**
 * Eight regressions in plan order, as the issue saw them: the two worst (TTFT +311 %) are the 3rd and the 7th; the
 * others lose decode by 6 … 20 % (limit 5 %); an error, an inconclusive (flagged) cell and passes around them.
 */
const PLAN: { id: string; kind: Kind; decode?: number; ttft?: number }[] = [
  { id: 'a/chat', kind: 'regression', decode: 46.5 }, // −7 %
  { id: 'b/chat', kind: 'pass', decode: 50 },
  { id: 'c/chat', kind: 'regression', decode: 50, ttft: 1644 }, // TTFT +311 %
  { id: 'd/chat', kind: 'regression', decode: 40 }, // −20 %
  { id: 'e/chat', kind: 'flagged', decode: 50 },
  { id: 'f/chat', kind: 'regression', decode: 47 }, // −6 %
  { id: 'g/chat', kind: 'regression', decode: 50, ttft: 1700 }, // TTFT +325 %
  { id: 'h/chat', kind: 'regression', decode: 44 }, // −12 %
  { id: 'i/chat', kind: 'error' },
  { id: 'j/chat', kind: 'regression', decode: 42.5 }, // −15 %
  { id: 'k/chat', kind: 'regression', decode: 46 }, // −8 %
]
const WORST_FIRST = ['g/chat', 'c/chat', 'd/chat', 'j/chat', 'h/chat', 'k/chat', 'a/chat', 'f/chat']

function run() {
  const cells = PLAN.map(({ id, kind, decode, ttft }) =>
    kind === 'error'
      ? failed(id, 'not ready after 20m (exit 1)')
      : measured(id, { decode: decode!, ttft: ttft ?? 400 }, kind === 'flagged' ? { flags: ['short-output'] } : {}),
  )
  return judged(
    cells,
    PLAN.map((p) => p.kind),
  )
}

/** Ids in the order `pattern` finds them in `text` (first capture group), each once. */
const idsIn = (text: string, pattern: RegExp) => [...new Set([...text.matchAll(pattern)].map((m) => m[1]))]
const section = (text: string, from: string, to: string) =>
  text.slice(text.indexOf(from), text.indexOf(to, text.indexOf(from) + from.length))

describe('severity order', () => {
  const results = run()

  it('was judged as planned: eight regressions, an error, an inconclusive cell', () => {
    expect(results.cells.map((c) => c.verdict.status)).toEqual(
      PLAN.map((p) => (p.kind === 'flagged' ? 'inconclusive' : p.kind)),
    )
  })

  it('ranks by |delta| ÷ the limit the verdict held it to, the limit kept in the results file', () => {
    const c = results.cells.find((x) => x.id === 'c/chat')!
    // TTFT's limit is 10 % and 50 ms: 50 ms of a 400 ms baseline, 12.5 %, is the stricter.
    expect(c.verdict.metrics.ttft!.limit).toBeCloseTo(0.125, 6)
    expect(severity(c)).toBeCloseTo(3.11 / 0.125, 1)
    const text = JSON.stringify(results)
    expect(readResults(text, 'results.json').cells[2].verdict.metrics.ttft!.limit).toBeCloseTo(0.125, 6)
  })

  it('orders errors, regressions worst first, inconclusive, then the rest in plan order', () => {
    expect(bySeverity(results.cells).map((c) => c.id)).toEqual(['i/chat', ...WORST_FIRST, 'e/chat', 'b/chat'])
  })

  it('every list of the job summary reads that order', () => {
    const summary = renderReport(results, CTX, SUMMARY_LIMIT)
    expect(summary.indexOf('#### Errors')).toBeLessThan(summary.indexOf('#### Regressions'))
    expect(idsIn(section(summary, '#### Regressions', '####'), /^- 🔴 \*\*([^*]+)\*\*/gm)).toEqual(WORST_FIRST)
    const table = idsIn(summary, /^\| \S+ [a-z]+ \| ([a-z])\s*\| (?:chat)/gm).map((t) => `${t}/chat`)
    expect(table).toEqual(['i/chat', ...WORST_FIRST, 'e/chat', 'b/chat'])
    const verdicts = section(summary, '<summary>Verdicts', '</details>')
    expect(idsIn(verdicts, /^- \S+ \*\*([^*]+)\*\*/gm)).toEqual(['i/chat', ...WORST_FIRST, 'e/chat', 'b/chat'])
  })

  it("the comment's compact table and its folded table of every cell read it too", () => {
    const comment = renderReport(results, { ...CTX, form: 'comment' }, COMMENT_LIMIT)
    const rows = (text: string) => idsIn(text, /^\| [^|]*?\*\*([a-z]) · chat\*\*/gm).map((t) => `${t}/chat`)
    expect(rows(comment.slice(0, comment.indexOf('<details>')))).toEqual(['i/chat', ...WORST_FIRST, 'e/chat'])
    expect(rows(section(comment, 'Every cell', '</details>'))).toEqual(['i/chat', ...WORST_FIRST, 'e/chat', 'b/chat'])
  })
})

describe('pastLimit', () => {
  const verdict = (delta: number | null, limit?: number): MetricVerdict => ({
    status: 'regression',
    metric: 'decode',
    stat: 'mean',
    current: 1,
    baseline: 1,
    delta,
    reason: '',
    ...(limit !== undefined && { limit }),
  })

  it.each([
    { delta: -0.12, limit: 0.05, want: 2.4 },
    { delta: 0.3, limit: 0.1, want: 3 },
    // A file of an earlier release has no limit: the change alone ranks it.
    { delta: -0.12, limit: undefined, want: 0.12 },
    // A share rising from zero is past any limit.
    { delta: null, limit: 0.01, want: Infinity },
  ])('delta $delta, limit $limit → $want', ({ delta, limit, want }) => {
    expect(pastLimit(verdict(delta, limit))).toBeCloseTo(want, 9)
  })

  it('a regression no metric explains (quality, a length miss) ranks after those past a limit', () => {
    const quality = {
      ...measured('q/chat', { decode: 50, ttft: 400 }),
      verdict: { status: 'regression', metrics: {}, failures: ['accuracy 40% < 60%'] },
    } as CellResult
    const decode = run().cells.find((c) => c.id === 'f/chat')!
    expect(bySeverity([quality, decode]).map((c) => c.id)).toEqual(['f/chat', 'q/chat'])
  })
})
