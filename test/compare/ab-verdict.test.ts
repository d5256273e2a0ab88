/**
 * Which judged cells want a same-box A/B and what its launches make of them (compare/ab-verdict.ts, through the
 * judge's `decide`): the reasons by mode, the stored-baseline verdict kept and annotated when no A/B ran, and the
 * A/B verdict with what the stored verdict fails outside the speed metrics when one did.
 */
import { describe, expect, it } from 'vitest'
import { abOrder, cellJudge, type AbEvidence, type AbRun } from '../../src/compare/index.js'
import { abNotRun, abWanted } from '../../src/compare/ab-verdict.js'
import type { AbMode, GateConfig, ScenarioPlan } from '../../src/core/plan.js'
import type { CellResult, CellVerdict } from '../../src/core/results.js'
import { cell, round } from '../helpers/builders.js'
import { targetPlan } from '../server/target.js'

const ID = 'sim-fp8/chat-1k'
const OTHER = 'sim-fp8/long-8k'
const SHA = 'abcdef1234567890abcdef1234567890abcdef12'
const GATE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' }, 'failed-requests': { max: 0.01 } }

/** A cold round then two steady ones at `decode` tok/s. */
const measured = (id: string, decode: number, extra: Partial<CellResult> = {}) =>
  cell(id, [round(0, false, { decode: decode * 0.8 }), round(1, true, { decode }), round(2, true, { decode })], extra)

const verdict = (status: CellVerdict['status'], extra: Partial<CellVerdict> = {}): CellVerdict => ({
  status,
  metrics: {},
  ...extra,
})

describe('abWanted', () => {
  const ok = (status: CellVerdict['status'], extra: Partial<CellResult> = {}) =>
    measured(ID, 50, { verdict: verdict(status), ...extra })
  const changed = { preflight: {}, fingerprint: { driver: '590.10' }, changes: ['driver 580.95 → 590.10', 'CUDA 12.8 → 13.0'] } // prettier-ignore
  const unchanged = { preflight: {}, fingerprint: { driver: '580.95' }, changes: [] }

  it.each<[string, AbMode, CellResult, string | undefined]>([
    ['off: never, even for a regression', 'off', ok('regression'), undefined],
    ['off: never, even for a new cell', 'off', ok('new'), undefined],
    ['a cell that errored, never', 'always', { ...ok('error'), status: 'error', error: 'exit 1', metrics: null }, undefined], // prettier-ignore
    ['an ok cell that measured nothing, never', 'always', ok('regression', { metrics: null }), undefined],
    ['a skipped cell, never', 'always', ok('missing', { metrics: null, verdict: verdict('missing', { skipped: 'unchanged' }) }), undefined], // prettier-ignore
    ['a skipped cell under confirm, never', 'confirm', { ...ok('new'), verdict: verdict('new', { skipped: 'unchanged' }) }, undefined], // prettier-ignore
    ['always: a passing cell', 'always', ok('pass'), 'ab: always'],
    ['always: an improved cell', 'always', ok('improvement'), 'ab: always'],
    ['confirm: a regression', 'confirm', ok('regression'), 'it looks regressed against the stored baseline'],
    ['confirm: an inconclusive cell', 'confirm', ok('inconclusive'), 'the stored baseline cannot decide it'],
    ['confirm: a new cell', 'confirm', ok('new'), 'there is no stored baseline for it'],
    ['confirm: a regression in another environment names the regression', 'confirm', ok('regression', { host: changed }), 'it looks regressed against the stored baseline'], // prettier-ignore
    ['confirm: a pass in another environment', 'confirm', ok('pass', { host: changed }), "the environment differs from the stored baseline's (driver 580.95 → 590.10; CUDA 12.8 → 13.0)"], // prettier-ignore
    ['confirm: an improvement in another environment', 'confirm', ok('improvement', { host: changed }), "the environment differs from the stored baseline's (driver 580.95 → 590.10; CUDA 12.8 → 13.0)"], // prettier-ignore
    ['confirm: a pass in the same environment', 'confirm', ok('pass', { host: unchanged }), undefined],
    ['confirm: a regression by a quality failure, which no A/B clears', 'confirm', ok('regression', { verdict: verdict('regression', { failures: ['accuracy 60% (baseline 100%)'] }), host: changed }), undefined], // prettier-ignore
    ['confirm: a pass without host facts', 'confirm', ok('pass'), undefined],
    ['confirm: an improvement', 'confirm', ok('improvement'), undefined],
  ])('%s', (_, mode, c, reason) => {
    expect(abWanted(c, mode)).toBe(reason)
  })
})

describe('abNotRun', () => {
  it('keeps the verdict and its status, and appends why no A/B ran to its note', () => {
    const c = measured(ID, 40, { verdict: verdict('regression', { note: 'decode −20%', failures: ['x'] }) })
    const before = structuredClone(c)
    const marked = abNotRun(c, 'ab-budget spent before the base launch 1')
    expect(marked.ab).toEqual({ status: 'not-run', reason: 'ab-budget spent before the base launch 1' })
    expect(marked.verdict).toEqual({
      status: 'regression',
      metrics: {},
      failures: ['x'],
      note: 'decode −20%; same-box A/B not run: ab-budget spent before the base launch 1; the stored-baseline verdict stands',
    })
    expect(c).toEqual(before)
  })

  it('gives a verdict without a note the reason alone, and carries what the A/B recorded', () => {
    const marked = abNotRun(measured(ID, 50, { verdict: verdict('new') }), 'no base', { base: SHA, launches: 2 })
    expect(marked.verdict).toEqual({
      status: 'new',
      metrics: {},
      note: 'same-box A/B not run: no base; the stored-baseline verdict stands',
    })
    expect(marked.ab).toEqual({ status: 'not-run', reason: 'no base', base: SHA, launches: 2 })
  })
})

type AbOutcome = Pick<AbEvidence, 'launches' | 'stopped' | 'ended'>

describe("decide on a cell's same-box A/B", () => {
  const scenario: ScenarioPlan = { id: 'chat-1k', inputTokens: 1024, outputTokens: 128, concurrency: 8, requests: 8 }
  const target = targetPlan({ id: 'sim-fp8', scenarios: [scenario], gate: GATE })
  const judge = cellJudge({ history: [] }, [target])
  /** The target's cells after its A/B: the tested one (ID) decided on the launches, the others as they were. */
  const applyAb = (cells: CellResult[], ab: AbEvidence) =>
    cells.map((c) => (c.id === ID ? judge.decide({ judged: c, ab }) : c))
  /** Engine time of launch i: distinct per launch, so the arms' sums tell which launches they took. */
  const ENGINE_MS = [1000, 2000, 4000, 8000]

  /** ABBA × 2 with every base launch at `baseDecode` and every PR launch at `prDecode`. */
  function outcome(baseDecode: number, prDecode: number): AbOutcome {
    const launches: AbRun[] = abOrder(2).map((arm, i) => ({
      arm,
      cells: new Map([[ID, measured(ID, arm === 'base' ? baseDecode : prDecode)]]),
      engineMs: ENGINE_MS[i],
    }))
    return { launches }
  }
  const applied = (o: AbOutcome): AbEvidence => ({ sha: SHA, minimum: 2, ...o })
  const stored = verdict('regression', {
    note: 'decode −16.0% beyond the limit',
    reference: { decode: { stat: 'mean', value: 41.4 } },
  })
  const judged = () => [
    measured(ID, 34.9, { verdict: stored }),
    measured(OTHER, 20, { verdict: verdict('inconclusive') }),
  ]

  it('gives the tested cell the A/B verdict, its launches in order and both arms’ engine time', () => {
    const cells = judged()
    const [tested, other] = applyAb(cells, applied(outcome(35, 35)))
    expect(other).toBe(cells[1])
    expect(tested.ab).toMatchObject({ status: 'ran', base: SHA, launches: 2, baseMs: 9000, prMs: 6000, stored })
    expect(tested.ab!.arms!.map((a) => [a.arm, a.status, a.engineMs, a.metrics?.decode_tps.mean])).toEqual([
      ['base', 'ok', 1000, 35],
      ['pr', 'ok', 2000, 35],
      ['pr', 'ok', 4000, 35],
      ['base', 'ok', 8000, 35],
    ])
    expect(tested.ab!.arms![0].rounds.map((r) => r.steady)).toEqual([false, true, true])
    expect(tested.verdict.status).toBe('pass')
    expect(tested.verdict.metrics.decode).toMatchObject({
      status: 'pass',
      baseline: expect.closeTo(35, 12),
      current: expect.closeTo(35, 12),
      delta: 0,
      // Equal steady rounds have no spread: the interval is the noise-floor's, 1.96 × 1.5 %.
      band: expect.closeTo(1.96 * 0.015, 12),
    })
    expect(tested.verdict.metrics['failed-requests']).toMatchObject({ status: 'pass', current: 0, baseline: 0 })
    // The stored reference stays: the report's headline figures still have a baseline value to show.
    expect(tested.verdict.reference).toEqual(stored.reference)
    expect(tested.verdict.note).toBe(
      'A/B on this box, ABBA × 2, against the base abcdef1; stored baseline: regression (decode −16.0% beyond the limit)',
    )
    expect(tested.verdict.failures).toBeUndefined()
  })

  it('judges a PR slower than its base on this box a regression, whatever the stored baseline said', () => {
    const passing = [measured(ID, 40, { verdict: verdict('new') })]
    const [tested] = applyAb(passing, applied(outcome(50, 40)))
    expect(tested.verdict.status).toBe('regression')
    expect(tested.verdict.metrics.decode).toMatchObject({
      status: 'regression',
      baseline: expect.closeTo(50, 12),
      current: expect.closeTo(40, 12),
    })
    expect(tested.verdict.metrics.decode!.delta).toBeCloseTo(-0.2, 12)
    expect(tested.ab!.stored).toEqual(verdict('new'))
  })

  it('keeps what the stored verdict fails outside the speed metrics: a quality failure still regresses', () => {
    const failure = 'greedy agreement 0.40 < 0.90 with the baseline outputs'
    const cells = [measured(ID, 35, { verdict: verdict('regression', { failures: [failure] }) })]
    const [tested] = applyAb(cells, applied(outcome(35, 35)))
    expect(tested.verdict.metrics.decode?.status).toBe('pass')
    expect(tested.verdict.status).toBe('regression')
    expect(tested.verdict.failures).toEqual([failure])
    expect(tested.verdict.note).toBe(
      `A/B on this box, ABBA × 2, against the base abcdef1; ${failure}; stored baseline: regression`,
    )
  })

  it('an A/B that stopped keeps the stored verdict, says why, and records the launches it had', () => {
    const reason = 'the PR launch 1 failed: exit 1 before ready'
    const launches: AbRun[] = [
      { arm: 'base', cells: new Map([[ID, measured(ID, 35)]]), engineMs: 1500 },
      { arm: 'pr', error: 'exit 1 before ready', engineMs: 300 },
    ]
    const cells = judged()
    const [tested, other] = applyAb(cells, applied({ launches, stopped: reason }))
    expect(other).toBe(cells[1])
    expect(tested.verdict).toEqual({
      ...stored,
      note: `${stored.note}; same-box A/B not run: ${reason}; the stored-baseline verdict stands`,
    })
    expect(tested.ab).toMatchObject({ status: 'not-run', reason, base: SHA, launches: 2, baseMs: 1500, prMs: 300 })
    expect(tested.ab!.stored).toBeUndefined()
    expect(
      tested.ab!.arms!.map(({ arm, status, error, metrics, rounds }) => ({
        arm,
        status,
        error,
        metrics: metrics?.decode_tps.mean ?? null,
        rounds: rounds.length,
      })),
    ).toEqual([
      // prettier-ignore
      { arm: 'base', status: 'ok', error: undefined, metrics: 35, rounds: 3 },
      { arm: 'pr', status: 'error', error: 'exit 1 before ready', metrics: null, rounds: 0 },
    ])
  })
})
