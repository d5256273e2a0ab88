/**
 * The output quality side of a cell's verdict: its figures (the target's probe, agreement of its
 * greedy outputs with the baseline cell's, the degenerate share pooled over every measurement)
 * against the same cell's baseline, through `qualityVerdict`. A failure fails the cell like a
 * metric does and is confirmed the same way: a re-measurement that streams degenerate output again
 * keeps it.
 */
import type { Agreement, CellQuality, DegenerateTally, QualityGate } from '../core/quality.js'
import type { CellResult } from '../core/results.js'
import { greedyAgreement, qualityVerdict, type QualityVerdict } from '../quality/index.js'
import { baselineCell, type BaselineView } from './baseline.js'

/** Agreement of a cell's greedy outputs with its baseline cell's; undefined when either side has none. */
export function cellAgreement(cell: CellResult, view: BaselineView): Agreement | undefined {
  const stored = baselineCell(view, cell.id)?.quality?.probe?.greedy
  const current = cell.quality?.probe?.greedy
  return stored?.length && current?.length ? greedyAgreement(current, stored) : undefined
}

/** Degenerate tallies of several measurements of one cell as one. */
function pooledDegenerate(tallies: readonly DegenerateTally[]): DegenerateTally | undefined {
  if (tallies.length <= 1) return tallies[0]
  const sum = (pick: (t: DegenerateTally) => number) => tallies.reduce((n, t) => n + pick(t), 0)
  const judged = sum((t) => t.judged)
  const degenerate = sum((t) => t.degenerate)
  const kinds = {
    repeat: sum((t) => t.kinds.repeat),
    vocabulary: sum((t) => t.kinds.vocabulary),
    compression: sum((t) => t.kinds.compression),
  }
  const example = tallies.find((t) => t.example !== undefined)?.example
  return {
    judged,
    degenerate,
    share: judged === 0 ? null : degenerate / judged,
    kinds,
    ...(example !== undefined && { example }),
  }
}

/** The quality verdict of a cell's measurements (first one first) against its baseline cell; a pass when the gate is off or nothing was recorded. */
export function judgeQuality(
  cells: readonly CellResult[],
  view: BaselineView,
  gate: QualityGate | undefined,
): QualityVerdict {
  const first = cells[0]
  if (!gate || !first?.quality) return { status: 'pass', reasons: [], warnings: [] }
  const degenerate = pooledDegenerate(cells.flatMap((c) => (c.quality?.degenerate ? [c.quality.degenerate] : [])))
  const agreement = cellAgreement(first, view)
  const current: CellQuality = { ...first.quality, ...(agreement && { agreement }), ...(degenerate && { degenerate }) }
  return qualityVerdict(current, baselineCell(view, first.id)?.quality, gate)
}
