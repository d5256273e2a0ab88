/**
 * Why a cell got its status, as plain clauses (`decode tok/s 50.0 → 44.0 tok/s, −12.0% (limit 5%, noise ±2%)`, each
 * metric's values base → head as its verdict has them, figure-text.ts; `server: preemptions
 * 0 → 37 per round`): the lists under the headline and the compact table's Why column say the same thing from
 * here. Clauses that several cells repeat are said once, as a numbered note (footnoted).
 */
import type { CellResult, MetricVerdict } from '../../core/results.js'
import { plural } from '../../core/format.js'
import { clip, escapeText } from '../escape.js'
import { environmentNote } from './host-section.js'
import { STATUS_MARK } from '../marks.js'
import { attribution } from '../../compare/index.js'
import { reasonWithValues } from './figure-text.js'

/** The engine counters that changed with the cell (`server: preemptions 0 → 37 per round`), clipped. */
function serverNote(cell: CellResult): string | undefined {
  const changes = cell.verdict.serverChanges
  return changes?.length ? `server: ${clip(changes.join(', '), 300)}` : undefined
}

/**
 * What may explain a regression beside its figures: failures outside the metrics (degenerate output, an accuracy
 * drop, a new length miss), a changed driver, engine or model file, a rename (its figures are against the old name's
 * baseline), the engine counters that moved.
 */
function besideFigures(cell: CellResult): string[] {
  const environment = environmentNote(cell)
  const renamed = cell.verdict.comparedWith ? `compared with ${cell.verdict.comparedWith} (renamed?)` : undefined
  return [...(cell.verdict.failures ?? []), environment, renamed, serverNote(cell)].filter((s): s is string => !!s)
}

/** A regressed cell's reasons: its regressed metrics, what may explain them, and how often it was confirmed. */
export function regressionReasons(cell: CellResult): string[] {
  const metrics = Object.values(cell.verdict.metrics)
    .filter((m) => m.status === 'regression')
    .map(reasonWithValues)
  const confirmed = cell.verdict.confirmed ? [`confirmed ${cell.verdict.confirmed}×`] : []
  return [...metrics, ...besideFigures(cell), ...confirmed]
}

/** A failed cell's reason: its error, clipped (the full text is in the details). */
function errorReason(cell: CellResult): string {
  return clip(cell.error ?? cell.verdict.note ?? 'error', 300)
}

/** What would decide an inconclusive metric, in words. */
function decider(m: MetricVerdict): string {
  switch (m.needs) {
    case 'rounds':
      return m.moreRounds ? `${plural(m.moreRounds, 'more warm round')}` : 'more warm rounds'
    case 'launches':
      return m.moreLaunches ? plural(m.moreLaunches, 'more launch per arm', 'more launches per arm') : 'more launches'
    case 'quieter-box':
      return 'a quieter box'
    case 'baseline':
      return 'more default-branch runs'
    case 'slo':
      return 'a looser SLO or a faster engine'
    case 'workload':
    case undefined:
      return 'the requested workload'
  }
}

/** An inconclusive cell's reasons: why each undecided metric is and what would decide it, then cell-wide ones. */
export function inconclusiveReasons(cell: CellResult): string[] {
  const metrics = Object.values(cell.verdict.metrics)
    .filter((m) => m.status === 'inconclusive')
    // The reason starts with the metric's label and may already say what it needs.
    .map((m) => `${reasonWithValues(m)}${/needs |would decide/.test(m.reason) ? '' : ` — needs ${decider(m)}`}`)
  // A reason that says what would decide it (`… — the default-branch run after merge measures it`) keeps its own.
  const undecided = cell.verdict.undecided ?? []
  const flagged = undecided.filter((u) => !u.includes(' — '))
  const cellWide = [
    ...(flagged.length ? [`${clip(flagged.join('; '), 200)} — needs the requested workload`] : []),
    ...undecided.filter((u) => u.includes(' — ')).map((u) => clip(u, 300)),
  ]
  const server = serverNote(cell)
  const why = [...metrics, ...cellWide, ...(server ? [server] : [])]
  return why.length ? why : [clip(cell.verdict.note ?? 'undecided', 300)]
}

/** What explains a regression beyond its figures: the spec-decode factors of decode, then besideFigures. */
function explanations(cell: CellResult): string[] {
  const decode = cell.verdict.metrics.decode
  const factors = decode?.status === 'regression' && decode.factors ? [attribution(decode, decode.factors)] : []
  return [...factors, ...besideFigures(cell)]
}

/**
 * Why a cell has its status, in the compact table's few words: a regression by what explains it (the counter, the
 * factor, the environment) when something does, else by its limit and noise, and by the A/B's interval when one
 * decided it; an inconclusive cell by its noise and what would decide it; others by their reasons or note.
 */
export function statusReasons(cell: CellResult): string[] {
  const reasons = ownReasons(cell)
  return cell.loosened?.length ? [...reasons, loosenedNote(cell.loosened)] : reasons
}

/** `this PR loosens its gate: raises decode tok/s's limit 5% → 50%` */
export function loosenedNote(loosened: readonly string[]): string {
  return `this PR loosens its gate against the base commit's: ${clip(loosened.join(', '), 300)}`
}

/** A cell the stored baseline called a regression and the same-box A/B cleared: it passes, and says so. */
export function overturned(cell: CellResult): boolean {
  return cell.ab?.status === 'ran' && cell.ab.stored?.status === 'regression' && cell.verdict.status !== 'regression'
}

/** What the A/B found where the stored baseline saw a regression, then the stored reasons it overturned. */
function overturnedReasons(cell: CellResult): string[] {
  const stored = Object.values(cell.ab!.stored!.metrics).filter((m) => m.status === 'regression')
  const ab = stored.flatMap((m) => {
    const now = cell.verdict.metrics[m.metric]
    return now ? [`stored-baseline regression overturned by the same-box A/B: ${reasonWithValues(now)}`] : []
  })
  return [...ab, ...stored.map((m) => `stored baseline: ${reasonWithValues(m)}`)]
}

function ownReasons(cell: CellResult): string[] {
  const { status } = cell.verdict
  if (overturned(cell)) return overturnedReasons(cell)
  if (status === 'regression') {
    const explained = explanations(cell)
    return explained.length && cell.ab?.status !== 'ran'
      ? explained
      : [...new Set([...regressionReasons(cell), ...explained])]
  }
  if (status === 'inconclusive') return inconclusiveReasons(cell)
  if (status === 'error') return [errorReason(cell)]
  const moved = Object.values(cell.verdict.metrics)
    .filter((m) => m.status !== 'pass')
    .map(reasonWithValues)
  return moved.length ? moved : cell.verdict.note ? [clip(cell.verdict.note, 300)] : []
}

/** Clauses at least this long that more than one line repeats are said once, as a note. */
const NOTE_MIN = 40

export interface Footnoted {
  /** Each line's escaped text, its repeated clauses replaced by note marks (`<sup>1</sup>`). */
  lines: string[]
  /** The notes, one escaped paragraph line each, numbered as marked; empty when nothing repeats. */
  notes: string[]
}

/**
 * Lines of reasons with every long clause after a line's first that appears on two or more lines moved to a
 * numbered note, so "launch-to-
 * launch noise is assumed ±1.5 % until more default-branch runs measure it" is read once, not on every line. A
 * reason's clauses are its `; `-separated parts; `max` clips what stays on each line (before escaping).
 */
export function footnoted(lines: readonly (readonly string[])[], max = Infinity): Footnoted {
  const clauses = lines.map((reasons) => reasons.flatMap(clausesOf).filter(Boolean))
  const seen = new Map<string, number>()
  for (const line of clauses) for (const c of new Set(line)) seen.set(c, (seen.get(c) ?? 0) + 1)
  const numbers = new Map<string, number>()
  const text = clauses.map((line) => {
    const kept: string[] = []
    const marks: number[] = []
    for (const [i, c] of [...new Set(line)].entries()) {
      // The first clause is the line's own reason: it stays on the line whoever else says it.
      if (i === 0 || c.length < NOTE_MIN || (seen.get(c) ?? 0) < 2) kept.push(c)
      else {
        if (!numbers.has(c)) numbers.set(c, numbers.size + 1)
        marks.push(numbers.get(c)!)
      }
    }
    const said = kept.length ? escapeText(clip(kept.join('; '), max)) : ''
    const refs = marks.map((n) => `<sup>${n}</sup>`).join('')
    return [said, refs].filter(Boolean).join(' ')
  })
  const notes = [...numbers].map(([c, n]) => `<sup>${n}</sup> ${escapeText(clip(c, 600))}`)
  return { lines: text, notes }
}

/** A reason's `; `-separated clauses, outside brackets only: `(a pull request's base; on the CLI, --base REV)` is one. */
export function clausesOf(reason: string): string[] {
  const out: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < reason.length; i++) {
    const c = reason[i]
    if (c === '(' || c === '[') depth++
    else if ((c === ')' || c === ']') && depth > 0) depth--
    else if (depth === 0 && c === ';' && reason[i + 1] === ' ') {
      out.push(reason.slice(start, i))
      start = i + 2
    }
  }
  out.push(reason.slice(start))
  return out
}

/** The notes as one block of lines, or nothing. */
export function notesBlock(notes: readonly string[]): string | undefined {
  return notes.length ? notes.join('<br>\n') : undefined
}

/** A list line per cell: mark, bold id, its reasons with repeated clauses footnoted; the notes after the list. */
function reasonList(cells: readonly CellResult[], reasons: (c: CellResult) => string[], suffix = ''): string {
  const { lines, notes } = footnoted(cells.map(reasons))
  const list = cells.map(
    (cell, i) =>
      `- ${STATUS_MARK[cell.verdict.status]} **${escapeText(cell.id)}**: ${lines[i] || 'undecided'}${suffix}`,
  )
  const block = notesBlock(notes)
  return block ? `${list.join('\n')}\n\n${block}` : list.join('\n')
}

/** One line per regressed cell with the reasons of its regressed metrics; `accepted` marks them as accepted. */
export function regressionList(cells: readonly CellResult[], accepted = false): string {
  return reasonList(cells, regressionReasons, accepted ? ' — accepted' : '')
}

/** One line per failed cell: its error, on one line and clipped (the full text is in the details). */
export function errorList(cells: readonly CellResult[]): string {
  return reasonList(cells, (c) => [errorReason(c)])
}

/** One line per inconclusive cell: why each undecided metric is, and what would decide it. */
export function inconclusiveList(cells: readonly CellResult[]): string {
  return reasonList(cells, inconclusiveReasons)
}
