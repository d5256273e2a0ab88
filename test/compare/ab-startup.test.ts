/** A launch figure in a same-box A/B: with `gate.startup`, each launch's own startup is paired like any figure. */
import { describe, expect, it } from 'vitest'
import { abCellVerdict, abOrder } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import { cell, round } from '../helpers/builders.js'

const GATE: GateConfig = { startup: { maxRegression: 0.2, stat: 'mean' } }

const launch = (startup: number) =>
  cell('t/s', [round(0, false), round(1, true), round(2, true)], { startup_s: startup })

describe('abCellVerdict on startup', () => {
  it('a PR that starts 50 % slower on this box regresses on startup', () => {
    const starts = { base: 40, pr: 60 }
    const v = abCellVerdict(
      abOrder(2).map((arm) => ({ arm, cell: launch(starts[arm]) })),
      GATE,
    )
    // Geometric means of the arms' launches: 40 and 60, to rounding.
    expect(v.metrics.startup).toMatchObject({ status: 'regression', baseline: 40 })
    expect(v.metrics.startup!.current).toBeCloseTo(60, 10)
    expect(v.metrics.startup!.delta).toBeCloseTo(0.5, 10)
    expect(v.status).toBe('regression')
  })

  it('equal starts pass; a launch without the figure leaves the cell undecided, never a pass', () => {
    const equal = abCellVerdict(
      abOrder(2).map((arm) => ({ arm, cell: launch(40) })),
      GATE,
    )
    expect(equal.status).toBe('pass')
    const missing = abOrder(2).map((arm, i) => ({ arm, cell: i === 1 ? cell('t/s', [round(1, true)]) : launch(40) }))
    expect(abCellVerdict(missing, GATE).status).toBe('inconclusive')
  })
})
