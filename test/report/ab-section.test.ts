/**
 * The same-box A/B in the report: the header line (what ran against which base and what the base arms cost, why
 * it did not run elsewhere), the section with both arms next to the stored baseline, and untrusted reasons escaped.
 */
import { describe, expect, it } from 'vitest'
import { runVerdict } from '../../src/compare/index.js'
import type { CellAb, CellResult, CellVerdict, MetricVerdict } from '../../src/core/results.js'
import { abHeader, abSection } from '../../src/report/markdown/ab-section.js'
import { COMMENT_LIMIT, renderReport } from '../../src/report/index.js'
import { CTX, flatCell, resultsFile } from '../helpers/builders.js'

const SHA = 'abcdef1234567890abcdef1234567890abcdef12'

const decode = (baseline: number, current: number, status: MetricVerdict['status'], band?: number): MetricVerdict => ({
  status,
  metric: 'decode',
  stat: 'mean',
  baseline,
  current,
  delta: current / baseline - 1,
  reason: '',
  ...(band !== undefined && { band }),
})
const failedRequests = (current: number, status: MetricVerdict['status']): MetricVerdict => ({
  status,
  metric: 'failed-requests',
  stat: 'mean',
  baseline: 0,
  current,
  delta: current ? null : 0,
  reason: '',
})

/** The stored-baseline verdict the A/B replaced: 15.7 % slower than a 41.4 tok/s reference. */
const STORED: CellVerdict = {
  status: 'regression',
  metrics: { decode: decode(41.4, 34.9, 'regression', 0.02), 'failed-requests': failedRequests(0, 'pass') },
}

/** A cell the A/B decided: `metrics` its A/B verdict's, the stored one under `ab.stored`. */
function tested(
  id: string,
  metrics: CellVerdict['metrics'],
  ab: Partial<CellAb> = {},
  extra: Partial<CellResult> = {},
) {
  const status = Object.values(metrics).some((m) => m.status === 'regression') ? 'regression' : 'pass'
  return flatCell(id, { decode: 34.9 }, 3, 1, {
    verdict: { status, metrics },
    ab: { status: 'ran', base: SHA, launches: 2, baseMs: 9000, prMs: 6000, stored: STORED, ...ab },
    ...extra,
  })
}
const notRun = (id: string, reason: string) =>
  flatCell(id, { decode: 50 }, 3, 1, {
    verdict: { status: 'new', metrics: {} },
    ab: { status: 'not-run', reason },
  })
const EQUAL = { decode: decode(34.95, 34.9, 'pass', 0.03), 'failed-requests': failedRequests(0, 'pass') }

describe('abHeader', () => {
  it('says nothing when no cell wanted an A/B', () => {
    expect(abHeader([flatCell('a/s', {}), flatCell('b/s', {})])).toBeUndefined()
  })

  it('counts cells and targets, and sums the base arms once per target', () => {
    // Target a's two cells shared its 9 s of base launches; target b's one cell had 3 s.
    const cells = [tested('a/s1', EQUAL), tested('a/s2', EQUAL), tested('b/s1', EQUAL, { baseMs: 3000 })]
    expect(abHeader(cells)).toBe(
      'Same-box A/B against the base `abcdef1` (ABBA × 2): 3 cells of 2 targets, base arms 12s of engine time',
    )
    expect(abHeader([tested('a/s1', EQUAL)])).toBe(
      'Same-box A/B against the base `abcdef1` (ABBA × 2): 1 cell of 1 target, base arms 9s of engine time',
    )
  })

  it('groups the reasons no A/B ran, with their counts, after the line of what ran', () => {
    const cells = [tested('a/s', EQUAL), notRun('b/s1', 'ab-budget spent'), notRun('b/s2', 'ab-budget spent')]
    expect(abHeader(cells)).toBe(
      [
        'Same-box A/B against the base `abcdef1` (ABBA × 2): 1 cell of 1 target, base arms 9s of engine time',
        'Same-box A/B not run for 2 cells: ab-budget spent',
      ].join('<br>\n'),
    )
  })

  it('counts the engine time of base launches that ran before the A/B stopped, once per target', () => {
    const stopped = (id: string, baseMs: number) =>
      flatCell(id, { decode: 50 }, 3, 1, {
        verdict: { status: 'regression', metrics: {} },
        ab: { status: 'not-run', reason: 'the PR launch 1 failed: exit 1', baseMs },
      })
    expect(abHeader([stopped('a/s1', 4000), stopped('a/s2', 4000)])).toBe(
      [
        'Same-box A/B: base arms 4s of engine time, none finished',
        'Same-box A/B not run for 2 cells: the PR launch 1 failed: exit 1',
      ].join('<br>\n'),
    )
    // With an A/B that finished, the line of what ran counts the stopped target's launches too.
    expect(abHeader([tested('b/s', EQUAL), stopped('a/s1', 4000)])?.split('<br>')[0]).toBe(
      'Same-box A/B against the base `abcdef1` (ABBA × 2): 1 cell of 1 target, base arms 13s of engine time',
    )
  })

  it('shows at most three reasons, in the order met, then how many more there are', () => {
    const cells = ['r1', 'r2', 'r2', 'r3', 'r4', 'r5'].map((r, i) => notRun(`t${i}/s`, r))
    expect(abHeader(cells)).toBe(
      [
        'Same-box A/B not run for 1 cell: r1',
        'Same-box A/B not run for 2 cells: r2',
        'Same-box A/B not run for 1 cell: r3',
        '… and 2 more reasons (see results.json)',
      ].join('<br>\n'),
    )
  })

  it('escapes a hostile reason: no tag, no link, no ping, no emphasis, no table break; and clips it', () => {
    const reason = '<img src=x onerror=alert(1)> **bold** @octocat | [x](https://evil.test) `code`\n# title'
    expect(abHeader([notRun('a/s', reason)])).toBe(
      'Same-box A/B not run for 1 cell: &lt;img src=x onerror=alert(1)&gt; \\*\\*bold\\*\\* @&#8203;octocat \\| \\[x\\](https:&#8203;//evil.test) \\`code\\` # title',
    )
    const long = abHeader([notRun('a/s', 'x'.repeat(1000))])!
    expect(long).toBe(`Same-box A/B not run for 1 cell: ${'x'.repeat(299)}…`)
  })
})

describe('abSection', () => {
  it('is absent when no cell ran an A/B', () => {
    expect(abSection([notRun('a/s', 'no base'), flatCell('b/s', {})])).toBeUndefined()
  })

  it('says a passing cell is equal on this box, shows both arms and the stored baseline, hides a held ceiling', () => {
    const host = { preflight: {}, fingerprint: { driver: '590.10' }, changes: ['driver 580.95 → 590.10'] }
    expect(abSection([tested('sim-fp8/chat-1k', EQUAL, {}, { host }), notRun('b/s', 'no base')])).toBe(
      [
        '#### Same-box A/B',
        '',
        '- ✅ **sim-fp8/chat-1k**: base and PR equal on this box within the limits; ✅ decode tok/s: base 35.0 tok/s → PR 34.9 tok/s, −0.1% ± 3% (stored baseline: regression, decode tok/s 41.4 tok/s (−15.7%); environment changed: driver 580.95 → 590.10; base arm 9s)',
      ].join('\n'),
    )
  })

  it('names a regression without calling the arms equal, and shows a ceiling the PR broke', () => {
    const slower = { decode: decode(50, 40, 'regression', 0.03), 'failed-requests': failedRequests(0.05, 'regression') }
    const stored: CellVerdict = { status: 'pass', metrics: { decode: decode(41, 40.5, 'pass') } }
    expect(abSection([tested('sim-fp8/chat-1k', slower, { stored, baseMs: 61_000 })])).toBe(
      [
        '#### Same-box A/B',
        '',
        '- 🔴 **sim-fp8/chat-1k**: 🔴 decode tok/s: base 50.0 tok/s → PR 40.0 tok/s, −20.0% ± 3%; 🔴 failed requests: base 0% → PR 5%, — (stored baseline: pass, decode tok/s 41.0 tok/s (−1.2%); base arm 1m1s)',
      ].join('\n'),
    )
  })

  it('escapes the cell id and an engine-reported environment change, clipping the stored line at 400 characters', () => {
    const prefix = 'stored baseline: regression, decode tok/s 41.4 tok/s (−15.7%); environment changed: engine <script>'
    const host = { preflight: {}, fingerprint: {}, changes: [`engine <script>${'y'.repeat(600)}`] }
    const text = abSection([tested('a<b>/@team **x**', EQUAL, {}, { host })])!
    expect(text).toContain('**a&lt;b&gt;/@&#8203;team \\*\\*x\\*\\***')
    expect(text).not.toMatch(/<b>|<script>/)
    const ys = /environment changed: engine &lt;script&gt;(y+)…; base arm 9s\)$/.exec(text)?.[1]
    expect(ys?.length).toBe(400 - 1 - prefix.length)
  })
})

describe('renderReport with a same-box A/B', () => {
  it('puts the header line under the provenance and the section in the comment', () => {
    const cells = [tested('sim-fp8/chat-1k', EQUAL), notRun('sim-bf16/chat-1k', 'the base commit abcdef1 does not define sim-bf16')] // prettier-ignore
    const results = resultsFile(cells, 'c'.repeat(40))
    results.summary = runVerdict(cells)
    const md = renderReport(results, CTX, COMMENT_LIMIT)
    const header = [
      'Same-box A/B against the base `abcdef1` (ABBA × 2): 1 cell of 1 target, base arms 9s of engine time',
      'Same-box A/B not run for 1 cell: the base commit abcdef1 does not define sim-bf16',
    ].join('<br>\n')
    expect(md).toContain(`\n\n${header}\n\n`)
    expect(md).toContain(
      '\n\n#### Same-box A/B\n\n- ✅ **sim-fp8/chat-1k**: base and PR equal on this box within the limits; ✅ decode tok/s: base 35.0 tok/s → PR 34.9 tok/s',
    )
    expect(md.indexOf('This run:')).toBeLessThan(md.indexOf(header))
    expect(md.indexOf(header)).toBeLessThan(md.indexOf('#### Same-box A/B'))
  })
})
