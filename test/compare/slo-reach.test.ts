/**
 * An SLO neither side meets (compare/slo-reach.ts), through the one judge (`cellJudge(…).decide`) on results-shaped
 * cells: goodput 0 % at the baseline and in this run, or at both arms of a same-box A/B, is never a pass. The cell is
 * inconclusive, its why quotes the SLO and what its median request measured, and says what would decide; a decode
 * regression of the same cell stays a regression; a goodput that rose from 0 is still an improvement.
 */
import { describe, expect, it } from 'vitest'
import { abWanted, cellJudge, type AbRun, type BaselineView } from '../../src/compare/index.js'
import type { SloBounds } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { inconclusiveReasons } from '../../src/report/markdown/reasons.js'
import { readResults } from '../../src/store/index.js'
import { cell, resultsFile, round, type Figures } from '../helpers/builders.js'

const ID = 'sim-fp8/chat'
const SLO: SloBounds = { ttftMs: 2000, tpotMs: 80 }
/** TTFT 400 ms meets its bound, TPOT 95 ms misses it: the why names the one the median request misses. */
const OUT_OF_REACH =
  /^goodput 0% → 0%: the SLO TTFT ≤ 2s, TPOT ≤ 80ms is out of reach on both sides \(p50 TPOT 95ms here; no good request (at the baseline|on the base arm) either\); a looser SLO or a faster engine would decide$/

/** A cell of a scenario with an `slo` whose steady rounds had this goodput share (TPOT 95 ms, TTFT 400 ms unless given). */
function sloCell(share: number, f: Figures = {}, slo: SloBounds = SLO): CellResult {
  const figures = { tpot: 95, ...f }
  const rounds = [0, 1, 2].map((i) => {
    const r = round(i, i > 0, figures)
    r.requests = 20
    Object.assign(r.metrics, { goodput: share, request_goodput: (share * 20) / 3 })
    return r
  })
  const c = cell(ID, rounds)
  c.workload = { ...c.workload, requests: 20, slo }
  c.metrics!.goodput = share
  c.metrics!.request_goodput = (share * 20) / 3
  return c
}

const baselineOf = (c: CellResult): BaselineView => ({ history: [], results: resultsFile([c]) })
const decide = (current: CellResult, base: CellResult) =>
  cellJudge(baselineOf(base), []).decide({ measured: [current] })

describe('an SLO neither side meets, against a stored baseline', () => {
  it('is inconclusive, not a pass: the why quotes the SLO and the median request, and what would decide', () => {
    const judged = decide(sloCell(0), sloCell(0))
    expect(judged.verdict.metrics.decode?.status).toBe('pass')
    expect(judged.verdict.metrics.goodput).toMatchObject({
      status: 'inconclusive',
      needs: 'slo',
      current: 0,
      baseline: 0,
    })
    expect(judged.verdict.metrics.goodput!.reason).toMatch(OUT_OF_REACH)
    expect(judged.verdict.metrics.goodput!.reason).toContain('no good request at the baseline either')
    expect(judged.verdict.status).toBe('inconclusive')
    // The report's why is the verdict's reason, once, without a second "needs".
    expect(inconclusiveReasons(judged)).toEqual([judged.verdict.metrics.goodput!.reason])
  })

  it('leaves a decided regression a regression', () => {
    const judged = decide(sloCell(0, { decode: 40, tpot: 95 }), sloCell(0))
    expect(judged.verdict.metrics.decode?.status).toBe('regression')
    expect(judged.verdict.metrics.goodput?.status).toBe('inconclusive')
    expect(judged.verdict.status).toBe('regression')
  })

  it.each<[string, number, number, string]>([
    ['a share that rose from 0 beyond the limit is an improvement', 0, 0.4, 'improvement'],
    ['a share that rose from 0 within the limit passes', 0, 0.02, 'pass'],
    ['a share that met the SLO at the baseline and not here is a drop', 1, 0, 'regression'],
  ])('%s', (_name, base, current, status) => {
    const judged = decide(sloCell(current), sloCell(base))
    expect(judged.verdict.metrics.goodput?.status).toBe(status)
    expect(judged.verdict.metrics.goodput?.reason).not.toMatch(/out of reach/)
  })

  it.each<[string, SloBounds, string]>([
    [
      'quotes only the bounds the SLO gives',
      { e2eMs: 5000 },
      'the SLO E2E ≤ 5s is out of reach on both sides (p50 E2E 12.47s here;',
    ],
    [
      'with every bound met by the median request, quotes every median',
      { ttftMs: 2000, tpotMs: 100 },
      'the SLO TTFT ≤ 2s, TPOT ≤ 100ms is out of reach on both sides (p50 TTFT 400ms, TPOT 95ms here;',
    ],
  ])('%s', (_name, slo, said) => {
    const judged = decide(sloCell(0, {}, slo), sloCell(0, {}, slo))
    expect(judged.verdict.metrics.goodput!.reason).toContain(said)
  })

  it('round-trips through a results file', () => {
    const judged = decide(sloCell(0), sloCell(0))
    const file = resultsFile([judged])
    expect(readResults(JSON.stringify(file), 'results.json')).toEqual(file)
  })

  it('wants no same-box A/B for that alone: launches cannot meet an SLO', () => {
    const judged = decide(sloCell(0), sloCell(0))
    expect(abWanted(judged, 'confirm')).toBeUndefined()
    expect(abWanted(judged, 'always')).toBe('ab: always')
    // Undecided for another reason as well, it still wants one.
    const noisy = { ...judged, verdict: { ...judged.verdict, undecided: ['usage-missing: 2/20 requests'] } }
    expect(abWanted(noisy, 'confirm')).toBe('the stored baseline cannot decide it')
  })
})

describe('an SLO neither arm of a same-box A/B meets', () => {
  const launch = (arm: 'base' | 'pr', c: CellResult): AbRun => ({ arm, cells: new Map([[ID, c]]), engineMs: 1000 })
  const ab = (base: CellResult, pr: CellResult) => ({
    sha: 'a'.repeat(40),
    minimum: 2,
    launches: [launch('base', base), launch('pr', pr), launch('pr', pr), launch('base', base)],
  })

  it('is inconclusive after the A/B too, naming the base arm', () => {
    const judge = cellJudge(baselineOf(sloCell(0)), [])
    const judged = judge.decide({ measured: [sloCell(0)] })
    const decided = judge.decide({ judged, ab: ab(sloCell(0), sloCell(0)) })
    expect(decided.ab?.status).toBe('ran')
    expect(decided.verdict.metrics.goodput).toMatchObject({ status: 'inconclusive', needs: 'slo' })
    expect(decided.verdict.metrics.goodput!.reason).toMatch(OUT_OF_REACH)
    expect(decided.verdict.metrics.goodput!.reason).toContain('no good request on the base arm either')
    expect(decided.verdict.status).toBe('inconclusive')
    expect(judge.abUndecided(judged, ab(sloCell(0), sloCell(0)).launches)).toBe(false)
  })

  it('a PR arm that met the SLO where the base arm did not improves; a decode loss still fails', () => {
    const judge = cellJudge(baselineOf(sloCell(0)), [])
    const judged = judge.decide({ measured: [sloCell(0.5)] })
    const better = judge.decide({ judged, ab: ab(sloCell(0), sloCell(0.5)) })
    expect(better.verdict.metrics.goodput?.status).toBe('improvement')
    const slower = judge.decide({ judged, ab: ab(sloCell(0), sloCell(0, { decode: 25, tpot: 95 })) })
    expect(slower.verdict.metrics.goodput?.status).toBe('inconclusive')
    expect(slower.verdict.metrics.decode?.status).toBe('regression')
    expect(slower.verdict.status).toBe('regression')
  })
})
