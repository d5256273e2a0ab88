import { describe, expect, it } from 'vitest'
import { FIRST_RUN_NOTE, NEW_CELL_NOTE, judgeCell, type BaselineView } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { cell, flatCell, historyEntry, resultsFile, round, type Figures } from './fixtures.js'

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

const cases: Case[] = [
  // direction
  { name: 'decode 10% lower is a regression', baseline: file({ decode: 50 }), current: spread({ decode: 45 }, 0.005), gate: DECODE, status: 'regression', metrics: { decode: 'regression' }, reason: /^decode tok\/s −10\.0% \(limit 5%, noise ±\d\.\d%\)$/ },
  { name: 'decode 10% higher is an improvement', baseline: file({ decode: 50 }), current: spread({ decode: 55 }, 0.005), gate: DECODE, status: 'improvement', metrics: { decode: 'improvement' }, reason: /^decode tok\/s \+10\.0%/ },
  { name: 'TTFT 20% higher is a regression', baseline: file({ ttft: 400 }), current: spread({ ttft: 480 }, 0.005), gate: TTFT, status: 'regression', metrics: { ttft: 'regression' }, reason: /^TTFT \+20\.0% \(limit 10%/ },
  { name: 'TTFT 20% lower is an improvement', baseline: file({ ttft: 400 }), current: spread({ ttft: 320 }, 0.005), gate: TTFT, status: 'improvement', metrics: { ttft: 'improvement' } },
  { name: 'decode 3% lower is within the limit', baseline: file({ decode: 50 }), current: spread({ decode: 48.5 }, 0.005), gate: DECODE, status: 'pass', metrics: { decode: 'pass' } },
  // min-delta
  {
    name: 'TTFT +20% but only +20 ms under min-delta 50 ms passes',
    baseline: file({ ttft: 100 }),
    current: spread({ ttft: 120 }, 0.005),
    gate: { ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' } },
    status: 'pass',
    reason: /^TTFT \+20\.0% \/ \+20\.0 ms \(limit 10% and 50 ms, noise/,
  },
  { name: 'TTFT +20% and +80 ms over min-delta 50 ms regresses', baseline: file({ ttft: 400 }), current: spread({ ttft: 480 }, 0.005), gate: { ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' } }, status: 'regression' },
  // stat selection
  { name: 'p99 TTFT +30% regresses when the gate compares p99', baseline: file({ ttft: 400, ttftP99: 600 }), current: spread({ ttft: 400, ttftP99: 780 }, 0.005), gate: { ttft: { maxRegression: 0.1, stat: 'p99' } }, status: 'regression', reason: /^TTFT p99 \+30\.0%/ },
  { name: 'the same p99 change passes when the gate compares the mean', baseline: file({ ttft: 400, ttftP99: 600 }), current: spread({ ttft: 400, ttftP99: 780 }, 0.005), gate: TTFT, status: 'pass' },
  { name: 'output tok/s is a scalar: stat does not apply', baseline: file({ output: 400 }), current: spread({ output: 340 }, 0.005), gate: { 'output-throughput': { maxRegression: 0.05, stat: 'p99' } }, status: 'regression', reason: /^output tok\/s −15\.0%/ },
  // flags, error, new, first run
  { name: 'a flag makes even a large regression inconclusive', baseline: file({ decode: 50 }), current: spread({ decode: 40 }, 0.005, ID, { flags: ['short-output'] }), gate: DECODE, status: 'inconclusive', metrics: { decode: 'inconclusive' }, note: /flagged \(short-output\)/ },
  { name: 'a failed cell is an error', baseline: file({ decode: 50 }), current: flatCell(ID, {}, 3, 1, { status: 'error', error: 'not ready after 20m', metrics: null }), gate: DECODE, status: 'error', note: /not ready after 20m/ },
  { name: 'a cell the baseline does not have is new', baseline: { history: [], results: resultsFile([spread({ decode: 50 }, 0.005, 'other/chat-1k')]) }, current: spread({ decode: 10 }, 0.005), gate: DECODE, status: 'new', note: new RegExp(NEW_CELL_NOTE) },
  { name: 'with no baseline at all the first run passes and says so', baseline: { history: [] }, current: spread({ decode: 10 }, 0.005), gate: DECODE, status: 'new', note: new RegExp(FIRST_RUN_NOTE) },
  { name: 'an unmeasured cell (metrics null, status ok) is missing', baseline: file({ decode: 50 }), current: { ...flatCell(ID, {}), metrics: null, rounds: [] }, gate: DECODE, status: 'missing' },
  // noise
  { name: 'a change past the limit but inside wide noise is inconclusive', baseline: file({ decode: 50 }, 0.08), current: spread({ decode: 46 }, 0.08), gate: DECODE, status: 'inconclusive', reason: /^decode tok\/s −8\.0% \(limit 5%\) but within noise ±\d+\.\d%$/ },
  { name: 'a small change under noise twice the limit is inconclusive, not a pass', baseline: file({ decode: 50 }, 0.1), current: spread({ decode: 49.5 }, 0.1), gate: DECODE, status: 'inconclusive', reason: /noise ±\d+(\.\d)?% is too wide for the limit 5%$/ },
  { name: 'an improvement inside the noise is only a pass', baseline: file({ decode: 50 }, 0.03), current: spread({ decode: 54 }, 0.03), gate: DECODE, status: 'pass' },
  { name: 'one steady round on each side: a change past the limit cannot be told from noise', baseline: { history: [], results: resultsFile([flatCell(ID, { decode: 50 }, 2, 1)]) }, current: flatCell(ID, { decode: 40 }, 2, 1), gate: DECODE, status: 'inconclusive', reason: /noise unknown/ },
  { name: 'one steady round on each side: an improvement past the limit is only a pass', baseline: { history: [], results: resultsFile([flatCell(ID, { decode: 50 }, 2, 1)]) }, current: flatCell(ID, { decode: 60 }, 2, 1), gate: DECODE, status: 'pass', reason: /^decode tok\/s \+20\.0% \(limit 5%, noise unknown\)$/ },
  // several metrics: the worst wins
  { name: 'decode improves but TTFT regresses: the cell regresses', baseline: file({ decode: 50, ttft: 400 }), current: spread({ decode: 60, ttft: 480 }, 0.005), gate: { ...DECODE, ...TTFT }, status: 'regression', metrics: { decode: 'improvement', ttft: 'regression' } },
  { name: 'no gated metrics: pass', baseline: file({ decode: 50 }), current: spread({ decode: 40 }, 0.005), gate: {}, status: 'pass', note: /no gated metrics/ },
]

describe('judgeCell rules', () => {
  it.each(cases)('$name', ({ baseline, current, gate, status, metrics, reason, note }) => {
    const verdict = judgeCell(current, baseline, gate)
    expect(verdict.status).toBe(status)
    if (metrics) expect(Object.fromEntries(Object.entries(verdict.metrics).map(([k, v]) => [k, v.status]))).toEqual(metrics)
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
    { name: 'the median of the history with several runs', view: { history, results: old }, baseline: 50, status: 'pass', note: /median of 5 runs/ },
    { name: 'the median of two runs', view: { history: [historyEntry([spread({ decode: 49 }, 0.005)], KEYS), historyEntry([spread({ decode: 51 }, 0.005)], KEYS)], results: old }, baseline: 50, status: 'pass', note: /median of 2 runs/ },
    { name: 'the baseline file when the history has one run', view: { history: history.slice(0, 1), results: old }, baseline: 60, status: 'regression', note: /baseline file/ },
    { name: 'the single history run when there is no file', view: { history: history.slice(2, 3) }, baseline: 49.6, status: 'pass', note: /one history run/ },
    { name: 'the file when the history lacks the cell', view: { history: [historyEntry([spread({ decode: 50 }, 0.005, 'x/y')], KEYS)], results: old }, baseline: 60, status: 'regression', note: /baseline file/ },
  ])('$name', ({ view, baseline, status, note }) => {
    const verdict = judgeCell(spread({ decode: 48 }, 0.005), view, DECODE)
    expect(verdict.metrics.decode?.baseline).toBeCloseTo(baseline, 9)
    expect(verdict.metrics.decode?.status).toBe(status)
    expect(verdict.note).toMatch(note)
  })

  it('an outlier run in the history widens the noise band: inconclusive rather than a verdict it cannot back', () => {
    const noisy = [50, 50, 60, 50, 51].map((d, i) => historyEntry([spread({ decode: d }, 0.005)], KEYS, `sha${i}`))
    const verdict = judgeCell(spread({ decode: 46 }, 0.005), { history: noisy }, DECODE)
    expect(verdict.metrics.decode?.baseline).toBe(50)
    expect(verdict.status).toBe('inconclusive')
    expect(verdict.metrics.decode?.reason).toMatch(/^decode tok\/s −8\.0% \(limit 5%\) but within noise ±\d+\.\d%$/)
  })

  it('records baseline values of the report figures, gated or not, in the gated stat', () => {
    const verdict = judgeCell(spread({ decode: 48, ttft: 400, ttftP99: 700 }, 0.005), file({ decode: 50, ttft: 380, ttftP99: 650, tpot: 21, output: 410 }), { ttft: { maxRegression: 0.1, stat: 'p99' } })
    expect(verdict.reference).toEqual({
      decode: { stat: 'mean', value: 50 },
      ttft: { stat: 'p99', value: 650 },
      tpot: { stat: 'mean', value: 21 },
      'output-throughput': { stat: 'mean', value: 410 },
    })
  })
})
