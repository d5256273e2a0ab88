/**
 * The one function that decides a cell: every kind of cell (measured, re-measured, read back, skipped, failed)
 * goes through `decide`, which returns the judged cell and never changes the one it was given. Each target's
 * rules come from its plan; a cell of a target the plan does not define is held to the built-in gate.
 */
import { describe, expect, it } from 'vitest'
import type { BaselineView } from '../../src/compare/index.js'
import type { CellResult } from '../../src/core/results.js'
import { cellJudge } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import { flatCell, resultsFile } from '../helpers/builders.js'
import { targetPlan } from '../server/target.js'

const gate = { decode: { maxRegression: 0.05, stat: 'mean' as const } }
const greedy = [{ prompt: 'Count to five.', text: 'one two three four five' }]
const host = (driver: string) => ({ preflight: {}, fingerprint: { driver } })
const stored = flatCell('a/s', { decode: 50 }, 3, 1, {
  host: host('580.95'),
  quality: { probe: { seed: 1, questions: 0, correct: 0, accuracy: 1, greedy }, degenerate: undefined },
})
const view: BaselineView = { results: resultsFile([stored, flatCell('b/s', { decode: 50 })]), history: [] }
/** A target of the plan the judge reads its rules from. */
const target = (id: string, gate: GateConfig, noiseFloor = 0.015) => {
  const plan = targetPlan({ id, gate })
  return { ...plan, settings: { ...plan.settings, noiseFloor } }
}
const judge = cellJudge(view, [target('a', gate), target('b', {})])
const readAll = (cells: CellResult[], by = judge) => cells.map((cell) => by.decide({ read: cell }))

/** A cell whose verdict relies on both kinds of evidence: its greedy outputs and its environment fingerprint. */
function current(decode: number): CellResult {
  const probe = {
    seed: 1,
    questions: 0,
    correct: 0,
    accuracy: 1,
    greedy: [{ prompt: greedy[0].prompt, text: 'one two three four six' }],
  }
  return flatCell('a/s', { decode }, 3, 1, { host: host('590.10'), quality: { probe, degenerate: undefined } })
}

/** Freezes every object in a cell, so that any write to it throws (modules run in strict mode). */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

describe('cellJudge().decide', () => {
  it("judges a cell with its target's gate and records what the verdict relied on", () => {
    const judged = judge.decide({ measured: [current(40)] })
    expect(judged.verdict.status).toBe('regression')
    expect(judged.quality?.agreement?.prompts).toBe(1)
    expect(judged.quality?.agreement?.mean).toBeLessThan(1)
    expect(judged.host?.changes).toEqual(['driver 580.95 → 590.10'])
    // Target b has no decode gate: the same loss is not a regression there.
    expect(judge.decide({ measured: [{ ...flatCell('b/s', { decode: 40 }) }] }).verdict.status).not.toBe('regression')
  })

  it('does not change the cells it is given, on any path', () => {
    const first = deepFreeze(current(40))
    const again = deepFreeze(current(40))
    const skipped = deepFreeze({
      ...flatCell('a/s', {}),
      metrics: null,
      verdict: { status: 'missing' as const, metrics: {}, skipped: 'unchanged' as const },
    })
    const failed = deepFreeze({
      ...flatCell('a/s', {}),
      status: 'error' as const,
      error: 'boom',
      verdict: { status: 'error' as const, metrics: {}, note: 'boom' },
    })
    const before = structuredClone([first, again, skipped, failed])
    const results = [
      judge.decide({ measured: [first] }),
      judge.decide({ measured: [first, again] }),
      judge.decide({ measured: [skipped] }),
      judge.decide({ measured: [failed] }),
      judge.moreRounds(first, 10),
    ]
    expect([first, again, skipped, failed]).toEqual(before)
    // The frozen input did not stop the judge from deciding: each path produced its verdict.
    expect(results.slice(0, 4).map((c) => (c as CellResult).verdict.status)).toEqual([
      'regression',
      'regression',
      'missing',
      'error',
    ])
  })

  it('pools re-measurements: a loss that the re-measurement does not show is not confirmed', () => {
    const confirmed = judge.decide({ measured: [current(40), current(40)] })
    expect(confirmed.verdict).toMatchObject({ status: 'regression', confirmed: 1 })
    const cleared = judge.decide({ measured: [current(46.5), current(50)] })
    expect(cleared.verdict.confirmed).toBe(1)
    expect(cleared.verdict.status).not.toBe('regression')
  })

  it("gives a skipped cell the baseline's figures and leaves an error cell as it is", () => {
    const skipped = {
      ...flatCell('a/s', {}),
      metrics: null,
      verdict: { status: 'missing' as const, metrics: {}, skipped: 'unchanged' as const },
    }
    expect(judge.decide({ measured: [skipped] }).verdict).toMatchObject({
      status: 'missing',
      skipped: 'unchanged',
      reference: { decode: { stat: 'mean', value: 50 } },
    })
    const failed = {
      ...flatCell('a/s', {}),
      status: 'error' as const,
      error: 'boom',
      verdict: { status: 'error' as const, metrics: {}, note: 'boom' },
    }
    expect(judge.decide({ measured: [failed] })).toBe(failed)
  })

  it("judges read-back cells with their target's noise-floor", () => {
    // 8 % slower: past the 5 % limit, short of twice it; only the assumed launch-to-launch noise decides.
    const judged = (noiseFloor: number) =>
      readAll([flatCell('a/s', { decode: 46 })], cellJudge(view, [target('a', gate, noiseFloor)]))[0].verdict
    expect(judged(0.005).status).toBe('regression')
    expect(judged(0.2).status).toBe('inconclusive')
  })
})

describe('cellJudge().decide on cells read back', () => {
  it('keeps the verdict a same-box A/B decided and judges every other cell against the baseline', () => {
    const abVerdict = {
      status: 'pass' as const,
      metrics: {},
      note: 'A/B on this box, ABBA × 2, against the base abcdef1',
    }
    const ab = { base: 'abcdef1'.padEnd(40, '0'), launches: 2, stored: { status: 'regression' as const, metrics: {} } }
    const decided = flatCell('a/s', { decode: 40 }, 3, 1, { verdict: abVerdict, ab: { status: 'ran', ...ab } })
    const notRun = flatCell('a/s', { decode: 40 }, 3, 1, {
      verdict: abVerdict,
      ab: { status: 'not-run', reason: 'ab-budget spent' },
    })
    const plain = flatCell('a/s', { decode: 40 }, 3, 1, { verdict: abVerdict })
    const [kept, rejudged, judged] = readAll([decided, notRun, plain])
    expect(kept).toBe(decided)
    // 20 % slower than the stored 50 tok/s: the stored baseline's verdict, whatever the cell said before.
    expect([rejudged.verdict.status, judged.verdict.status]).toEqual(['regression', 'regression'])
    expect(rejudged.ab).toEqual(notRun.ab)
    // Judged anew, it still says that no A/B ran and the stored-baseline verdict stands.
    expect(rejudged.verdict.note).toMatch(
      /; same-box A\/B not run: ab-budget spent; the stored-baseline verdict stands$/,
    )
    expect(judged.verdict.note ?? '').not.toMatch(/A\/B/)
  })

  it('holds a cell of a target the plan does not define to the built-in gate, never to none', () => {
    // 20 % slower than the stored 50 tok/s: the built-in decode limit (5 %) fails it; an empty gate would pass it.
    const [judged] = readAll([flatCell('a/s', { decode: 40 })], cellJudge(view, []))
    expect(judged.verdict.status).toBe('regression')
    expect(judged.verdict.metrics.decode?.status).toBe('regression')
  })
})
