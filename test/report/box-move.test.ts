/**
 * The box-wide move (box-move.ts) on cells the real judge decided: most cells of the box moving together by a similar
 * amount is said once in the headline; fewer cells, changes further apart, a move within the limit, or too few cells
 * are not.
 */
import { describe, expect, it } from 'vitest'
import { COMMENT_LIMIT, renderReport } from '../../src/report/index.js'
import { boxMoves, MIN_CELLS, MOST, SIMILAR } from '../../src/report/markdown/box-move.js'
import { CTX, judged, measured, type Kind } from '../helpers/builders.js'

/** Cells at these decode speeds against a baseline of 50 tok/s (limit 5 %), TTFT unchanged at 400 ms. */
function box(decodes: number[]) {
  const cells = decodes.map((decode, i) => measured(`t${i}/chat`, { decode, ttft: 400 }))
  return judged(
    cells,
    cells.map((): Kind => 'pass'),
  )
}

const comment = (decodes: number[]) => renderReport(box(decodes), { ...CTX, form: 'comment' }, COMMENT_LIMIT)

describe('a box-wide move', () => {
  it('12 of 14 cells −7 … −8 %: one headline line, the per-cell verdicts as they were', () => {
    const decodes = [46.4, 46.3, 46.2, 46.1, 46.0, 46.3, 46.4, 46.2, 46.1, 46.0, 46.3, 46.2, 50, 50.1]
    const text = comment(decodes)
    const lines = text.split('\n').filter((l) => l.startsWith('📦'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe(
      '📦 12 of 14 cells decode tok/s −7.2% … −8.0% on `nvidia-gb10`: the box, not the code? The same-box A/B decides ' +
        '(`ab:` in the matrix file, docs/same-box.md): it measures base and PR on this box.',
    )
    // The headline is above everything else; every regressed cell keeps its row.
    expect(text.indexOf('📦')).toBeLessThan(text.indexOf('Baseline:'))
    expect(text.slice(0, text.indexOf('<details>')).match(/^\| 🔴 /gm)).toHaveLength(12)
  })

  it.each([
    // 2 of 3 is two thirds.
    { what: 'two thirds of three cells', decodes: [46, 46.2, 50], moved: 2 },
    // A box that sped up moved as much as one that slowed.
    { what: 'a faster box', decodes: [54, 54.2, 54.1, 53.9], moved: 4 },
  ])('$what: named', ({ decodes, moved }) => {
    const moves = boxMoves(box(decodes).cells)
    expect(moves.map((m) => [m.metric, m.moved, m.compared])).toEqual([['decode', moved, decodes.length]])
  })

  it.each([
    { what: `fewer than ${MIN_CELLS} cells`, decodes: [46, 46.1] },
    { what: `fewer than ${Math.round(MOST * 100)} % of the cells`, decodes: [46, 46.1, 46.2, 46.3, 50, 50, 50] },
    // Spread 6 … 20 %: each slower, not by a similar amount (more than half the 5 % limit apart).
    { what: 'changes further apart than half the limit', decodes: [47, 45, 43, 41, 40] },
    { what: 'a move within the limit', decodes: [48.5, 48.6, 48.4, 48.5] },
  ])('$what: not named', ({ decodes }) => {
    expect(boxMoves(box(decodes).cells)).toEqual([])
    expect(comment(decodes)).not.toContain('📦')
  })

  it(`"similar" is within ${SIMILAR} of the limit: 2.4 points apart is, 2.6 is not`, () => {
    // decode −7 %, −7 % and −9.4 % (or −9.6 %), one cell unchanged: three of four are needed, half the 5 % limit apart.
    expect(boxMoves(box([46.5, 46.5, 45.3, 50]).cells).map((m) => m.moved)).toEqual([3])
    expect(boxMoves(box([46.5, 46.5, 45.2, 50]).cells)).toEqual([])
  })

  it('leaves out cells a same-box A/B decided: they were measured against the base on this box', () => {
    const results = box([46, 46.1, 46.2, 46.3])
    for (const c of results.cells.slice(0, 2)) c.ab = { status: 'ran' }
    expect(boxMoves(results.cells)).toEqual([])
  })
})
