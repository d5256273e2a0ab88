// The comment's cell table keeps a concurrency sweep's points together, in concurrency order, under their target,
// wherever the verdicts put its first point; every other row keeps its place (attention first, then plan order).
import { describe, expect, it } from 'vitest'
import { renderReport } from '../../src/report/index.js'
import { sweepsTogether } from '../../src/report/markdown/table.js'
import type { CellResult } from '../../src/core/results.js'
import { CTX, type Kind, judged, measured } from '../helpers/builders.js'

/** Target and scenario of each table row, top to bottom. */
function rowIds(markdown: string): string[] {
  return markdown
    .split('\n')
    .filter((l) => /^\| (🔴|💥|🟡|🟢|⚪|🆕|✅) /.test(l))
    .map((l) => {
      const cells = l.split(/(?<!\\)\|/).map((c) => c.trim())
      // The table breaks every `@` before a word with a zero-width space, so that no text pings anyone.
      return `${cells[2]}/${cells[3]}`.replaceAll('@&#8203;', '@')
    })
}

// Plan order: a's points run high to low here so that plan order, attention order and concurrency order all differ.
const PLAN: [string, Kind][] = [
  ['a/chat@c8', 'pass'],
  ['a/single', 'pass'],
  ['a/chat@c1', 'pass'],
  ['b/chat@c2', 'pass'],
  ['a/chat@c4', 'regression'],
  ['b/other', 'improvement'],
  ['b/chat@c1', 'new'],
  ['a/chat@c2', 'pass'],
]

function results() {
  const cells = PLAN.map(([id, kind]) =>
    measured(id, { decode: kind === 'regression' ? 44 : kind === 'improvement' ? 56 : 50, ttft: 400 }),
  )
  return judged(
    cells,
    PLAN.map(([, kind]) => kind),
  )
}

describe('the cells table with a concurrency sweep', () => {
  it('was judged as built', () => {
    expect(results().cells.map((c) => c.verdict.status)).toEqual(PLAN.map(([, kind]) => kind))
  })

  it("puts a target's sweep together in concurrency order, where its first row stands; other rows keep their places", () => {
    const report = renderReport(results(), CTX, 65_536)
    expect(rowIds(report)).toEqual([
      // a's sweep comes up with its regressed point, and brings its other points along, in concurrency order.
      'a/chat@c1',
      'a/chat@c2',
      'a/chat@c4',
      'a/chat@c8',
      'b/other',
      // b's sweep: its first row in attention order is the new c1, before the passing c2.
      'b/chat@c1',
      'b/chat@c2',
      'a/single',
    ])
  })

  it('leaves a list without sweep points as it is, and groups whatever subset it is given', () => {
    const cells = results().cells
    const plain = cells.filter((c) => !c.scenario.includes('@'))
    expect(sweepsTogether(plain)).toEqual(plain)
    const some = [cells[7], cells[1], cells[0]] as CellResult[]
    expect(sweepsTogether(some).map((c) => c.id)).toEqual(['a/chat@c2', 'a/chat@c8', 'a/single'])
  })

  it('keeps two targets’ sweeps of one scenario apart', () => {
    const ids = sweepsTogether(results().cells).map((c) => c.id)
    const a = ids.filter((id) => id.startsWith('a/chat@'))
    const first = ids.indexOf(a[0])
    expect(ids.slice(first, first + a.length)).toEqual(a)
  })
})
