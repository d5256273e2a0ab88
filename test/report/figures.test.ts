/**
 * One reference per row (report/markdown/figures.ts): a cell a same-box A/B decided shows every headline figure as the PR
 * arms' against the base arms' (geometric means over launches, as compare/ab.ts); an A/B one of whose launches
 * measured nothing leaves the row on the stored baseline, and each says which. The bundle shows both tables in
 * test/e2e/ab-table.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { AbLaunch, CellResult } from '../../src/core/results.js'
import { figure, rowReference } from '../../src/report/markdown/figures.js'
import { cellsTable } from '../../src/report/markdown/table.js'
import { storedBlock, storedCell } from '../helpers/builders.js'

const launch = (arm: AbLaunch['arm'], decode: number | null): AbLaunch => ({
  arm,
  status: decode === null ? 'error' : 'ok',
  metrics: decode === null ? null : storedBlock({ decode, ttft: 100 * (50 / decode) }),
  rounds: [],
  engineMs: 1000,
})

/** The PR measured decode 45 on its own; the A/B: base 50 and 40.5, PR 45 and 36.45 (both −10 %); stored baseline 60. */
function decided(arms: AbLaunch[]): CellResult {
  const stored = {
    status: 'pass' as const,
    metrics: {},
    reference: { tpot: { value: 1000 / 60, stat: 'mean' as const } },
  }
  return storedCell('t/a', [{ decode: 45, ttft: 100 }], {
    ab: { status: 'ran', base: 'b'.repeat(40), launches: 2, arms, stored },
    verdict: {
      status: 'regression',
      metrics: {
        decode: {
          metric: 'decode',
          stat: 'mean',
          status: 'regression',
          current: Math.sqrt(45 * 36.45),
          baseline: Math.sqrt(50 * 40.5),
          delta: -0.1,
          reason: 'decode −10%',
        },
      },
      reference: stored.reference,
    },
  })
}

describe('figures of a row a same-box A/B decided', () => {
  it('every figure is the PR arms’ against the base arms’, and the row says so', () => {
    const cell = decided([launch('base', 50), launch('pr', 45), launch('pr', 36.45), launch('base', 40.5)])
    expect(rowReference(cell)).toBe('base arm')
    expect(figure(cell, 'decode').delta).toBeCloseTo(-0.1, 10)
    // TPOT is not gated: against the stored reference (1000/60 ms) it would read +33 %; against the base arm +11.1 %.
    expect(figure(cell, 'tpot').delta).toBeCloseTo(1 / 0.9 - 1, 10)
    expect(figure(cell, 'tpot').value).toBeCloseTo(1000 / Math.sqrt(45 * 36.45), 10)
    expect(figure(cell, 'output-throughput').delta).toBeCloseTo(-0.1, 10)
    expect(cellsTable([cell])).toContain('| 🔴 regression · Δ vs base arm |')
  })

  it('an A/B with a launch that measured nothing leaves the row on the stored baseline, and says so', () => {
    const cell = decided([launch('base', 50), launch('pr', null), launch('pr', 36.45), launch('base', 40.5)])
    cell.verdict = { status: 'error', metrics: {}, note: 'PR launch 1 failed', reference: cell.ab!.stored!.reference }
    expect(rowReference(cell)).toBe('stored baseline')
    expect(figure(cell, 'tpot').delta).toBeCloseTo(60 / 45 - 1, 10)
    expect(cellsTable([cell])).toContain('| 💥 error · Δ vs stored baseline |')
  })

  it('a row without an A/B names no reference', () => {
    expect(rowReference(storedCell('t/a', [{ decode: 45, ttft: 100 }]))).toBeUndefined()
  })
})
