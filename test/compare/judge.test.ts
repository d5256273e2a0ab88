import { describe, expect, it } from 'vitest'
import { FIRST_RUN_NOTE, NEW_CELL_NOTE, judgeCell, type BaselineView } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { type Figures, cell, flatCell, historyEntry, resultsFile, round } from '../helpers/builders.js'

const ID = 'sim-fp8/chat-1k'
const DECODE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' } }
const TTFT: GateConfig = { ttft: { maxRegression: 0.1, stat: 'mean' } }
const KEYS = ['decode_tps.mean', 'ttft_ms.mean', 'ttft_ms.p99', 'tpot_ms.mean', 'output_tps']

/** Two steady rounds at figure × (1 ∓ spread), after one discarded round. */
function spread(f: Figures, s: number, id = ID, extra: Partial<CellResult> = {}): CellResult {
  const scale = (k: number): Figures => Object.fromEntries(Object.entries(f).map(([key, v]) => [key, v * k]))
  return cell(id, [round(0, false, scale(0.7)), round(1, true, scale(1 - s)), round(2, true, scale(1 + s))], extra)
}

const file = (f: Figures, s = 0.005): BaselineView => ({ history: [], results: resultsFile([spread(f, s)]) })

interface Case {
  name: string
  baseline: BaselineView
  current: CellResult
  gate: GateConfig
  status: string
  metrics?: Record<string, string>
  reason?: RegExp
  note?: RegExp
}

const ENERGY: GateConfig = { energy: { maxRegression: 0.1, stat: 'mean' } }

const cases: Case[] = [
  // energy per token (gate.energy): lower is better
  {
    name: 'energy per token 15% higher is a regression under gate.energy 10%',
    baseline: file({ energy: 0.4 }),
    current: spread({ energy: 0.46 }, 0.005),
    gate: ENERGY,
    status: 'regression',
    metrics: { energy: 'regression' },
    reason: /^energy per token \+15\.0% \(limit 10%, noise ±\d\.\d%\)$/,
  },
  {
    name: 'energy per token 5% higher is within gate.energy 10%',
    baseline: file({ energy: 0.4 }),
    current: spread({ energy: 0.42 }, 0.005),
    gate: ENERGY,
    status: 'pass',
    metrics: { energy: 'pass' },
  },
  {
    name: 'energy gated where the PR measured no power: not measured, cannot compare',
    baseline: file({ energy: 0.4 }),
    current: spread({}, 0.005),
    gate: ENERGY,
    status: 'inconclusive',
    note: /energy per token: not measured, cannot compare/,
  },
  // direction
  {
    name: 'decode 10% lower is a regression',
    baseline: file({ decode: 50 }),
    current: spread({ decode: 45 }, 0.005),
    gate: DECODE,
    status: 'regression',
    metrics: { decode: 'regression' },
    reason: /^decode tok\/s −10\.0% \(limit 5%, noise ±\d\.\d%\)$/,
  },
  {
    name: 'decode 10% higher is an improvement',
    baseline: file({ decode: 50 }),
    current: spread({ decode: 55 }, 0.005),
    gate: DECODE,
    status: 'improvement',
    metrics: { decode: 'improvement' },
    reason: /^decode tok\/s \+10\.0%/,
  },
  {
    name: 'TTFT 20% higher is a regression',
    baseline: file({ ttft: 400 }),
    current: spread({ ttft: 480 }, 0.005),
    gate: TTFT,
    status: 'regression',
    metrics: { ttft: 'regression' },
    reason: /^TTFT \+20\.0% \(limit 10%/,
  },
  {
    name: 'TTFT 20% lower is an improvement',
    baseline: file({ ttft: 400 }),
    current: spread({ ttft: 320 }, 0.005),
    gate: TTFT,
    status: 'improvement',
    metrics: { ttft: 'improvement' },
  },
  {
    name: 'decode 3% lower is within the limit',
    baseline: file({ decode: 50 }),
    current: spread({ decode: 48.5 }, 0.005),
    gate: DECODE,
    status: 'pass',
    metrics: { decode: 'pass' },
  },
  // min-delta
  {
    name: 'TTFT +20% but only +20 ms under min-delta 50 ms passes',
    baseline: file({ ttft: 100 }),
    current: spread({ ttft: 120 }, 0.005),
    gate: { ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' } },
    status: 'pass',
    reason: /^TTFT \+20\.0% \/ \+20 ms \(limit 10% and 50 ms, noise/,
  },
  {
    name: 'TTFT +20% and +80 ms over min-delta 50 ms regresses',
    baseline: file({ ttft: 400 }),
    current: spread({ ttft: 480 }, 0.005),
    gate: { ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' } },
    status: 'regression',
  },
  // stat selection
  {
    name: 'p99 TTFT +30% regresses when the gate compares p99',
    baseline: file({ ttft: 400, ttftP99: 600 }),
    current: spread({ ttft: 400, ttftP99: 780 }, 0.005),
    gate: { ttft: { maxRegression: 0.1, stat: 'p99' } },
    status: 'regression',
    reason: /^TTFT p99 \+30\.0%/,
  },
  {
    name: 'the same p99 change passes when the gate compares the mean',
    baseline: file({ ttft: 400, ttftP99: 600 }),
    current: spread({ ttft: 400, ttftP99: 780 }, 0.005),
    gate: TTFT,
    status: 'pass',
  },
  {
    name: 'output tok/s is a scalar: stat does not apply',
    baseline: file({ output: 400 }),
    current: spread({ output: 340 }, 0.005),
    gate: { 'output-throughput': { maxRegression: 0.05, stat: 'p99' } },
    status: 'regression',
    reason: /^output tok\/s −15\.0%/,
  },
  // flags, error, new, first run
  {
    name: 'a flag other than a length miss makes even a large speed regression inconclusive',
    baseline: file({ decode: 50 }),
    current: spread({ decode: 40 }, 0.005, ID, { flags: ['usage-missing: 3/8 requests'] }),
    gate: DECODE,
    status: 'inconclusive',
    metrics: { decode: 'inconclusive' },
    note: /flagged \(usage-missing: 3\/8 requests\): speed not compared/,
  },
  {
    name: 'a failed cell is an error',
    baseline: file({ decode: 50 }),
    current: flatCell(ID, {}, 3, 1, { status: 'error', error: 'not ready after 20m', metrics: null }),
    gate: DECODE,
    status: 'error',
    note: /not ready after 20m/,
  },
  {
    name: 'a cell the baseline does not have is new',
    baseline: { history: [], results: resultsFile([spread({ decode: 50 }, 0.005, 'other/chat-1k')]) },
    current: spread({ decode: 10 }, 0.005),
    gate: DECODE,
    status: 'new',
    note: new RegExp(NEW_CELL_NOTE),
  },
  {
    name: 'with no baseline at all the first run passes and says so',
    baseline: { history: [] },
    current: spread({ decode: 10 }, 0.005),
    gate: DECODE,
    status: 'new',
    note: new RegExp(FIRST_RUN_NOTE),
  },
  {
    name: 'an unmeasured cell (metrics null, status ok) is missing',
    baseline: file({ decode: 50 }),
    current: { ...flatCell(ID, {}), metrics: null, rounds: [] },
    gate: DECODE,
    status: 'missing',
  },
  // noise
  {
    name: 'a change past the limit but inside wide noise is inconclusive, and says what would decide it',
    baseline: file({ decode: 50 }, 0.04),
    current: spread({ decode: 46 }, 0.04),
    gate: DECODE,
    status: 'inconclusive',
    reason:
      /^decode tok\/s −8\.0% \(limit 5%\) but within noise ±\d+(\.\d)?%; could detect a loss ≥ \d+(\.\d)?% at this noise; /,
  },
  {
    name: 'a small change under noise twice the limit is inconclusive, not a pass',
    baseline: file({ decode: 50 }, 0.1),
    current: spread({ decode: 49.5 }, 0.1),
    gate: DECODE,
    status: 'inconclusive',
    reason: /noise ±\d+(\.\d)?% is too wide for the limit 5%; /,
  },
  {
    name: 'a loss beyond twice the limit fails even inside a wide band',
    baseline: file({ decode: 50 }, 0.1),
    current: spread({ decode: 44 }, 0.1),
    gate: DECODE,
    status: 'regression',
    reason: /^decode tok\/s −12\.0% \(limit 5%, noise ±\d+(\.\d)?%\): more than twice the limit$/,
  },
  {
    name: 'an improvement inside the noise is only a pass',
    baseline: file({ decode: 50 }, 0.02),
    current: spread({ decode: 54 }, 0.02),
    gate: DECODE,
    status: 'pass',
  },
  // one warm round: the noise floor stands in, never "noise unknown"
  {
    name: 'one steady round on each side: a loss past the limit and the floor band is a regression',
    baseline: { history: [], results: resultsFile([flatCell(ID, { decode: 50 }, 2, 1)]) },
    current: flatCell(ID, { decode: 46 }, 2, 1),
    gate: DECODE,
    status: 'regression',
    reason: /^decode tok\/s −8\.0% \(limit 5%, noise ±7\.5%\)$/,
  },
  {
    name: 'one steady round on each side: a small change passes',
    baseline: { history: [], results: resultsFile([flatCell(ID, { decode: 50 }, 2, 1)]) },
    current: flatCell(ID, { decode: 49 }, 2, 1),
    gate: DECODE,
    status: 'pass',
  },
  {
    name: 'one steady round on each side: an improvement beyond the floor band is an improvement',
    baseline: { history: [], results: resultsFile([flatCell(ID, { decode: 50 }, 2, 1)]) },
    current: flatCell(ID, { decode: 60 }, 2, 1),
    gate: DECODE,
    status: 'improvement',
  },
  // several metrics: the worst wins
  {
    name: 'decode improves but TTFT regresses: the cell regresses',
    baseline: file({ decode: 50, ttft: 400 }),
    current: spread({ decode: 60, ttft: 480 }, 0.005),
    gate: { ...DECODE, ...TTFT },
    status: 'regression',
    metrics: { decode: 'improvement', ttft: 'regression' },
  },
  {
    name: 'no gated metrics: pass',
    baseline: file({ decode: 50 }),
    current: spread({ decode: 40 }, 0.005),
    gate: {},
    status: 'pass',
    note: /no gated metrics/,
  },
]

describe('judgeCell rules', () => {
  it.each(cases)('$name', ({ baseline, current, gate, status, metrics, reason, note }) => {
    const verdict = judgeCell(current, baseline, gate)
    expect(verdict.status).toBe(status)
    // Every verdict with a band knows the smallest loss it could detect: (z₀.₉₉ + z₀.₉₅) of the band's 2.5 sd.
    for (const v of Object.values(verdict.metrics))
      if (v.band !== undefined) expect(v.mde).toBeCloseTo((v.band * (2.326 + 1.645)) / 2.5, 12)
    if (metrics)
      expect(Object.fromEntries(Object.entries(verdict.metrics).map(([k, v]) => [k, v.status]))).toEqual(metrics)
    if (reason) expect(Object.values(verdict.metrics)[0]?.reason).toMatch(reason)
    if (note) expect(verdict.note).toMatch(note)
  })
})

describe('history median versus single baseline file', () => {
  // Five default-branch runs around 50 tok/s; the baseline file is an older run at 60 tok/s. The cell now does 48.
  const runs = [50, 50.4, 49.6, 50.2, 49.8].map((d) => spread({ decode: d }, 0.005))
  const history = runs.map((r, i) => historyEntry([r], KEYS, `sha${i}`))
  const old = resultsFile([spread({ decode: 60 }, 0.005)])

  it.each([
    {
      name: 'the median of the history with several runs',
      view: { history, results: old },
      baseline: 50,
      status: 'pass',
      note: /median of 5 runs/,
    },
    {
      name: 'the median of two runs',
      view: {
        history: [
          historyEntry([spread({ decode: 49 }, 0.005)], KEYS),
          historyEntry([spread({ decode: 51 }, 0.005)], KEYS),
        ],
        results: old,
      },
      baseline: 50,
      status: 'pass',
      note: /median of 2 runs/,
    },
    {
      name: 'the baseline file when the history has one run',
      view: { history: history.slice(0, 1), results: old },
      baseline: 60,
      status: 'regression',
      note: /baseline file/,
    },
    {
      name: 'the single history run when there is no file',
      view: { history: history.slice(2, 3) },
      baseline: 49.6,
      status: 'pass',
      note: /one history run/,
    },
    {
      name: 'the file when the history lacks the cell',
      view: { history: [historyEntry([spread({ decode: 50 }, 0.005, 'x/y')], KEYS)], results: old },
      baseline: 60,
      status: 'regression',
      note: /baseline file/,
    },
  ])('$name', ({ view, baseline, status, note }) => {
    const verdict = judgeCell(spread({ decode: 48 }, 0.005), view, DECODE)
    expect(verdict.metrics.decode?.baseline).toBeCloseTo(baseline, 9)
    expect(verdict.metrics.decode?.status).toBe(status)
    expect(verdict.note).toMatch(note)
  })

  it('an odd run in the history neither moves the reference nor widens the band', () => {
    const odd = [50, 50.3, 60, 49.8, 50.5].map((d, i) => historyEntry([spread({ decode: d }, 0.005)], KEYS, `sha${i}`))
    const verdict = judgeCell(spread({ decode: 46 }, 0.005), { history: odd }, DECODE)
    expect(verdict.metrics.decode?.baseline).toBe(50.3)
    expect(verdict.status).toBe('regression')
    expect(verdict.metrics.decode?.band).toBeLessThan(0.07)
  })

  it('records baseline values of the report figures, gated or not, in the gated stat', () => {
    const verdict = judgeCell(
      spread({ decode: 48, ttft: 400, ttftP99: 700 }, 0.005),
      file({ decode: 50, ttft: 380, ttftP99: 650, tpot: 21, output: 410 }),
      { ttft: { maxRegression: 0.1, stat: 'p99' } },
    )
    expect(verdict.reference).toEqual({
      decode: { stat: 'mean', value: 50 },
      ttft: { stat: 'p99', value: 650 },
      tpot: { stat: 'mean', value: 21 },
      'output-throughput': { stat: 'mean', value: 410 },
    })
  })
})

describe('no silent pass: failures and flags the baseline did not have', () => {
  const FAILED: GateConfig = { ...DECODE, 'failed-requests': { max: 0.01 } }
  /** The cell with `errors` of its 8 requests failed in every steady round. */
  const failing = (c: CellResult, errors: number): CellResult => ({
    ...c,
    metrics: { ...c.metrics!, failed_share: errors / 8 },
    rounds: c.rounds.map((r) =>
      r.steady ? { ...r, errors, errorReasons: [{ reason: 'HTTP 500', count: errors }] } : r,
    ),
  })
  const baselineWith = (c: CellResult): BaselineView => ({ history: [], results: resultsFile([c]) })
  const MISSED = 'lengths-missed: output 96-128/128'

  it('new failed requests above the ceiling fail the cell, with the reason', () => {
    const verdict = judgeCell(failing(spread({ decode: 50 }, 0.005), 1), file({ decode: 50 }), FAILED)
    expect(verdict.status).toBe('regression')
    expect(verdict.metrics['failed-requests']).toMatchObject({
      status: 'regression',
      reason: 'failed requests 12.5% (baseline 0%, limit 1%)',
    })
  })

  it('failed requests the baseline had too do not fail the cell', () => {
    const verdict = judgeCell(
      failing(spread({ decode: 50 }, 0.005), 1),
      baselineWith(failing(spread({ decode: 50 }, 0.005), 1)),
      FAILED,
    )
    expect(verdict.metrics['failed-requests']?.status).toBe('pass')
    expect(verdict.status).toBe('pass')
  })

  it('an errors flag does not hide new failed requests: the cell regresses', () => {
    const c = { ...failing(spread({ decode: 50 }, 0.005), 2), flags: ['errors: 2/8 in round 2'] }
    const verdict = judgeCell(c, file({ decode: 50 }), FAILED)
    expect(verdict.status).toBe('regression')
    expect(verdict.metrics.decode?.status).toBe('pass')
  })

  it('a length miss the baseline did not have fails the cell, with the reason', () => {
    const verdict = judgeCell(spread({ decode: 50 }, 0.005, ID, { flags: [MISSED] }), file({ decode: 50 }), DECODE)
    expect(verdict.status).toBe('regression')
    expect(verdict.failures).toEqual([`${MISSED}: achieved lengths missed the request, the baseline's did not`])
    expect(verdict.note).toMatch(/achieved lengths missed the request/)
  })

  it('a length miss the baseline had too leaves the cell inconclusive, speed not compared', () => {
    const known = baselineWith(spread({ decode: 50 }, 0.005, ID, { flags: ['lengths-missed: output 100-128/128'] }))
    const verdict = judgeCell(spread({ decode: 40 }, 0.005, ID, { flags: [MISSED] }), known, DECODE)
    expect(verdict.status).toBe('inconclusive')
    expect(verdict.failures).toBeUndefined()
    expect(verdict.undecided).toEqual([`${MISSED} (the baseline has it too)`])
    expect(verdict.metrics.decode).toMatchObject({ status: 'inconclusive', needs: 'workload' })
  })

  it('a flagged cell without a baseline stays inconclusive: there is nothing to call the flag new against', () => {
    expect(judgeCell(spread({ decode: 50 }, 0.005, ID, { flags: [MISSED] }), { history: [] }, DECODE).status).toBe(
      'inconclusive',
    )
  })
})

describe('inconclusive says what would decide it', () => {
  const history = (values: number[], s = 0.005) => ({
    history: values.map((d, i) => historyEntry([spread({ decode: d }, s)], KEYS, `sha${i}`)),
  })

  it('noisy rounds: more warm rounds, with how many', () => {
    // Rounds ±3 % around the level: the band is mostly round-to-round noise, which rounds average away.
    const verdict = judgeCell(spread({ decode: 46 }, 0.03), history([50, 50.4, 49.6, 50.2, 49.8], 0.03), DECODE)
    expect(verdict.metrics.decode).toMatchObject({ status: 'inconclusive', needs: 'rounds', moreRounds: 3 })
    expect(verdict.metrics.decode?.reason).toMatch(/about \d+ more warm rounds? would decide$/)
  })

  it('a history whose runs scatter: a quieter machine, not more rounds', () => {
    // Twenty main runs, each launch 5 % off the last: the launch-to-launch spread is measured, and rounds cannot shrink it.
    const scattered = Array.from({ length: 20 }, (_, i) => 50 * (1 + 0.05 * Math.sin(i * 2.3)))
    const verdict = judgeCell(spread({ decode: 45 }, 0.005), history(scattered), DECODE)
    expect(verdict.metrics.decode).toMatchObject({ status: 'inconclusive', needs: 'quieter-box' })
    expect(verdict.metrics.decode?.moreRounds).toBeUndefined()
    expect(verdict.metrics.decode?.reason).toMatch(/needs a quieter machine$/)
  })
})

describe('a level shift main accepted', () => {
  it('re-bases the reference and says so', () => {
    // Seven runs at 50 tok/s, then main got 20 % faster for the last three: a PR at 54 lost 10 % against the new level.
    const levels = [50, 50.2, 49.9, 50.1, 49.8, 50.3, 50, 60, 60.2, 59.9]
    const view: BaselineView = {
      history: levels.map((d, i) => historyEntry([spread({ decode: d }, 0.005)], KEYS, `${i}`.repeat(40))),
    }
    const verdict = judgeCell(spread({ decode: 54 }, 0.005), view, DECODE)
    expect(verdict.metrics.decode).toMatchObject({
      status: 'regression',
      baseline: 60,
      rebased: { sha: '7'.repeat(40), runs: 3 },
    })
    expect(verdict.metrics.decode?.rebased?.change).toBeCloseTo(0.2, 9)
    expect(verdict.note).toMatch(/decode tok\/s: main changed \+20\.0% at 7777777; comparing with the 3 runs since/)
  })
})
