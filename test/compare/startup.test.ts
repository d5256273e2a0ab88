/**
 * `startup`: a figure of the launch, read from the cell's `startup_s`, one value a launch with no rounds. The band
 * has no round-to-round part, so it is the launch-to-launch spread alone: with a baseline file (no history) the
 * assumed floor f = 1.5 % on both sides, Z·√(f² + f²) = 2.5 × 1.5 % × √2 = 5.3 %.
 */
import { describe, expect, it } from 'vitest'
import { confirmCell, judgeCell, moreRounds, type BaselineView } from '../../src/compare/index.js'
import { readCellMetric } from '../../src/core/metrics.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { flatCell, resultsFile } from '../helpers/builders.js'

const ID = 'sim-fp8/chat-1k'
const STARTUP: GateConfig = { startup: { maxRegression: 0.2, stat: 'mean' } }
const DECODE: GateConfig = { decode: { maxRegression: 0.05, stat: 'mean' } }

const launched = (startup: number | undefined, decode = 50): CellResult =>
  flatCell(ID, { decode }, 3, 1, startup === undefined ? {} : { startup_s: startup })
const file = (startup: number | undefined): BaselineView => ({ history: [], results: resultsFile([launched(startup)]) })

/** Default-branch runs whose startups are `values`, as the store keeps them (`startup_s`, no rounds). */
function history(values: number[]): BaselineView {
  return {
    history: values.map((v, i) => ({
      sha: String(i).padStart(40, '0'),
      date: `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`,
      runUrl: 'https://example.test/run',
      cells: { [ID]: { startup_s: { steady: v, rounds: [] } } },
    })),
  }
}

describe('startup against a baseline file', () => {
  it.each([
    [13, 'regression', /^startup \+30\.0% \(limit 20%, noise ±5\.3%\)$/],
    [11, 'pass', /^startup \+10\.0% \(limit 20%, noise ±5\.3%\)$/],
    [7, 'improvement', /^startup −30\.0% \(limit 20%, noise ±5\.3%\)$/],
  ])('current %ss against 10s: %s', (current, status, reason) => {
    const verdict = judgeCell(launched(current), file(10), STARTUP)
    expect(verdict.status).toBe(status)
    expect(verdict.metrics.startup).toMatchObject({ status, current, baseline: 10, stat: 'mean' })
    expect(verdict.metrics.startup!.reason).toMatch(reason)
  })

  it('is not judged unless gated: a much slower start passes a decode-only gate', () => {
    const verdict = judgeCell(launched(30), file(10), DECODE)
    expect(verdict.status).toBe('pass')
    expect(verdict.metrics.startup).toBeUndefined()
  })

  it('a baseline without startup_s (an older file, a url: target) gives no verdict, only a note', () => {
    const verdict = judgeCell(launched(30), file(undefined), { ...STARTUP, ...DECODE })
    expect(verdict.metrics.startup).toBeUndefined()
    expect(verdict.status).toBe('pass')
    expect(verdict.note).toContain('startup: no baseline value')
  })

  it('a cell without startup_s against a baseline with it is not measured, so inconclusive', () => {
    const verdict = judgeCell(launched(undefined), file(10), STARTUP)
    expect(verdict.status).toBe('inconclusive')
    expect(verdict.undecided).toEqual(['startup: not measured, cannot compare'])
  })
})

describe('startup noise is launch to launch', () => {
  // Ten runs alternating 9 and 11 s: reference 11 s (the last five's median), launch sd ≈ 10 %, measured (nine
  // degrees of freedom), so the band is ≈ 28 %: 13.5 s (+22.7 %) is past the 20 % limit and inside the band.
  const scattered = history([9, 11, 9, 11, 9, 11, 9, 11, 9, 11])

  it('a change inside a wide launch spread is inconclusive for a quieter machine, never for more rounds', () => {
    const current = launched(13.5)
    const verdict = judgeCell(current, scattered, STARTUP)
    expect(verdict.metrics.startup).toMatchObject({ status: 'inconclusive', needs: 'quieter-box' })
    expect(verdict.metrics.startup!.moreRounds).toBeUndefined()
    expect(moreRounds(current, scattered, STARTUP, { maxRounds: 20 })).toBe(0)
  })

  it('rounds do not narrow it: a cell with many quiet rounds has the same band as one with two', () => {
    const band = (rounds: number) =>
      judgeCell(flatCell(ID, { decode: 50 }, rounds, 1, { startup_s: 10.5 }), scattered, STARTUP).metrics.startup!.band
    expect(band(20)).toBeCloseTo(band(3)!, 12)
  })
})

describe('startup under confirmation', () => {
  it('re-measured on the same launch, the value is that launch’s: the regression stands', () => {
    const first = launched(13)
    const judged = { ...first, verdict: judgeCell(first, file(10), STARTUP) }
    const verdict = confirmCell(judged, [launched(13)], file(10), STARTUP)
    expect(verdict.metrics.startup).toMatchObject({ status: 'regression', current: 13 })
    // Not called confirmed: the same launch cannot confirm its own startup.
    expect(verdict.note).toContain('(one launch; confirm-fresh measures it on another)')
    expect(verdict.note).not.toMatch(/startup[^;]*\(confirmed\)/)
  })

  it('a fresh launch back at the baseline level pools to the mean of both launches and clears it', () => {
    const first = launched(13)
    const judged = { ...first, verdict: judgeCell(first, file(10), STARTUP) }
    const verdict = confirmCell(judged, [launched(10)], file(10), STARTUP, { fresh: true })
    expect(verdict.metrics.startup).toMatchObject({ status: 'pass', current: 11.5 })
    expect(verdict.status).toBe('pass')
  })
})

describe('startup_s in a cell', () => {
  it('readCellMetric reads it from the cell, never from the metrics block', () => {
    expect(readCellMetric(launched(41.2), 'startup', 'mean')).toBe(41.2)
    expect(readCellMetric(launched(undefined), 'startup', 'mean')).toBeUndefined()
  })
})
