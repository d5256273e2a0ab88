/**
 * A cell's final verdict after an A/B (compare/ab-final.ts): the A/B decides what it decided, an undecided A/B
 * never clears a stored regression, and arms that ran the same engine never clear what the engine change may explain.
 */
import { describe, expect, it } from 'vitest'
import { abFinal } from '../../src/compare/index.js'
import type { CellVerdict, MetricVerdict } from '../../src/core/results.js'

function decode(status: MetricVerdict['status'], delta: number, reason = `decode tok/s ${delta}`): MetricVerdict {
  return { status, metric: 'decode', stat: 'mean', current: 40 * (1 + delta), baseline: 40, delta, reason }
}

const cellVerdict = (status: CellVerdict['status'], metrics: CellVerdict['metrics']): CellVerdict => ({
  status,
  metrics,
})

const STORED_REGRESSION = cellVerdict('regression', { decode: decode('regression', -0.07) })
const SAID = 'A/B on this box, ABBA × 6, against the base abc1234'

describe('abFinal', () => {
  it('an A/B that decided a pass overturns the stored regression', () => {
    const final = abFinal({
      stored: STORED_REGRESSION,
      ab: cellVerdict('pass', { decode: decode('pass', 0.004) }),
      said: SAID,
    })
    expect(final.status).toBe('pass')
    expect(final.metrics.decode?.delta).toBe(0.004)
    expect(final.note).toMatch(/^A\/B on this box.*stored baseline: regression$/)
  })

  it('an undecided A/B that leans toward the loss never downgrades a stored regression: it stands, and says why', () => {
    const ab = { ...decode('inconclusive', -0.07, 'decode tok/s −7.0% ± 2.9% (A/B …)'), leansToLoss: true as const }
    const final = abFinal({ stored: STORED_REGRESSION, ab: cellVerdict('inconclusive', { decode: ab }), said: SAID })
    expect(final.status).toBe('regression')
    expect(final.metrics.decode?.status).toBe('regression')
    expect(final.metrics.decode?.reason).toBe(
      'decode tok/s -0.07; the A/B could not decide it and leans toward the loss',
    )
    expect(final.note).toContain(
      'decode tok/s: the stored-baseline regression stands, the A/B could not decide it and leans toward the loss (decode tok/s −7.0% ± 2.9% (A/B …))',
    )
  })

  it('an undecided A/B that leans the other way contradicts a stored regression: inconclusive, never a pass', () => {
    // An unchanged PR on a box that slowed since the baseline: the stored path says −8 %, the arms −1 %.
    const ab = decode('inconclusive', -0.01, 'decode tok/s −1.0% ± 6.0% (A/B …)')
    const final = abFinal({ stored: STORED_REGRESSION, ab: cellVerdict('inconclusive', { decode: ab }), said: SAID })
    expect(final.status).toBe('inconclusive')
    expect(final.metrics.decode?.status).toBe('inconclusive')
  })

  it('a stored regression the A/B did not measure stands', () => {
    const final = abFinal({
      stored: STORED_REGRESSION,
      ab: { status: 'inconclusive', metrics: {}, undecided: ['no gated metric measured by both arms'] },
      said: SAID,
    })
    expect(final.status).toBe('regression')
  })

  it('an undecided A/B leaves a stored inconclusive inconclusive, and a stored pass to the A/B', () => {
    const ab = cellVerdict('inconclusive', { decode: decode('inconclusive', -0.06) })
    expect(abFinal({ stored: cellVerdict('inconclusive', { decode: decode('inconclusive', -0.06) }), ab, said: SAID }).status).toBe('inconclusive') // prettier-ignore
    expect(abFinal({ stored: cellVerdict('pass', { decode: decode('pass', 0) }), ab, said: SAID }).status).toBe('inconclusive') // prettier-ignore
  })

  it('arms that ran the same engine cannot clear the stored verdict, but can find a regression of their own', () => {
    const sameEngine = ['engine 1.0 → 1.1, base arm 1.1']
    const pass = cellVerdict('pass', { decode: decode('pass', 0) })
    const kept = abFinal({ stored: STORED_REGRESSION, ab: pass, said: SAID, sameEngine })
    expect(kept.status).toBe('regression')
    expect(kept.note).toContain("both arms ran the PR's engine (engine 1.0 → 1.1, base arm 1.1)")
    const inconclusive = cellVerdict('inconclusive', { decode: decode('inconclusive', -0.06) })
    expect(abFinal({ stored: inconclusive, ab: pass, said: SAID, sameEngine }).status).toBe('inconclusive')
    const found = cellVerdict('regression', { decode: decode('regression', -0.12) })
    expect(abFinal({ stored: cellVerdict('pass', { decode: decode('pass', 0) }), ab: found, said: SAID, sameEngine }).status).toBe('regression') // prettier-ignore
    // A stored pass is no claim the engine change could hide: the A/B's pass stands.
    expect(abFinal({ stored: cellVerdict('pass', { decode: decode('pass', 0) }), ab: pass, said: SAID, sameEngine }).status).toBe('pass') // prettier-ignore
  })

  it('keeps what the stored verdict fails outside the speed metrics, and an A/B error is an error', () => {
    const stored = { ...STORED_REGRESSION, failures: ['accuracy 60% (baseline 100%)'] }
    expect(abFinal({ stored, ab: cellVerdict('pass', { decode: decode('pass', 0) }), said: SAID }).status).toBe('regression') // prettier-ignore
    expect(abFinal({ stored, ab: { status: 'error', metrics: {}, note: 'base launch 1 failed' }, said: SAID }).status).toBe('error') // prettier-ignore
  })
})
