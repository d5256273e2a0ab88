/**
 * What every cell's verdict note says is the run's, not a cell's: a first run without a baseline ("first run: no
 * baseline yet, passes"), a run that only measures ("not compared with a baseline"), a same-box A/B that ran for no
 * cell and why, where the baseline came from. Said on every row and every verdict line it buries what differs (a
 * first run of 16 cells read "not compared with a baseline" 16 times), so such a clause is taken out of the cells'
 * notes and said once: by the top of the report where it already says it (the headline and the Baseline line say
 * there is no baseline, the A/B line why no A/B ran), else in one line under them.
 *
 * A clause is the run's when the notes of every measured cell (a failed cell's note is its error) carry it, two
 * cells or more; a note's clauses are its `; `-separated parts (reasons.ts `clausesOf`).
 */
import { notComparedVerdict, type CellResult } from '../../core/results.js'
import { FIRST_RUN_NOTE } from '../../compare/index.js'
import { clip, escapeText } from '../escape.js'
import { clausesOf } from './reasons.js'

/** Clauses the headline, the Baseline line or the A/B line (ab-section.ts `abHeader`) already say. */
function saidAbove(clause: string): boolean {
  return (
    clause === FIRST_RUN_NOTE ||
    clause === notComparedVerdict().note ||
    // compare/ab-verdict.ts `abNotRun`: `same-box A/B not run: <reason>; the stored-baseline verdict stands`.
    clause.startsWith('same-box A/B not run: ') ||
    clause === 'the stored-baseline verdict stands' ||
    // compare/judge.ts: `baseline: baseline file`, `baseline: median of 5 runs`, as the Baseline line says it.
    clause.startsWith('baseline: ')
  )
}

export interface RunNotes {
  /** The cells, the run's clauses taken out of their notes (a note left empty is removed). */
  cells: CellResult[]
  /** The run's clauses the top does not say, as one line; undefined when there are none. */
  line?: string
}

export function runNotes(cells: readonly CellResult[]): RunNotes {
  const measured = cells.filter((c) => c.verdict.status !== 'error')
  if (measured.length < 2) return { cells: [...cells] }
  const shared = measured
    .map((c) => new Set(c.verdict.note ? clausesOf(c.verdict.note) : []))
    .reduce((common, clauses) => new Set([...common].filter((x) => clauses.has(x))))
  if (!shared.size) return { cells: [...cells] }
  const stripped = cells.map((c) => {
    if (c.verdict.status === 'error' || !c.verdict.note) return c
    const { note, ...verdict } = c.verdict
    const kept = clausesOf(note!).filter((x) => !shared.has(x))
    return { ...c, verdict: kept.length ? { ...verdict, note: kept.join('; ') } : verdict }
  })
  const unsaid = [...shared].filter((x) => !saidAbove(x))
  const line = unsaid.length ? `Every cell: ${escapeText(clip(unsaid.join('; '), 600))}` : undefined
  return { cells: stripped, line }
}
