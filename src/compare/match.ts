/**
 * Which baseline a cell is judged against, before any figure is compared (pure). Three side doors close here:
 *
 * - **Another workload under the same id.** A baseline run that measured another workload (concurrency,
 *   lengths, requests, rate, API, request body) is no reference for this one: it is left out of the cell's
 *   view. When that leaves nothing, the cell is inconclusive and says what changed.
 * - **Renames.** A cell the baseline lacks, in a run that left baseline cells unmeasured, may be one of them
 *   renamed. It is paired with one when exactly one unmeasured cell has its engine, quant and workload and
 *   shares its target or its scenario id (a rename changes one of the two), and that cell pairs with no other:
 *   the pair is judged as one cell. A new cell left unpaired in such a run is inconclusive, never a clean pass.
 * - **Another hardware key.** A first run on a key while the store holds others (a PR that changed `hardware`,
 *   or the runner now detects another GPU) compares nothing: its cells are inconclusive.
 */
import type { CellResult, CellVerdict, HistoryEntry } from '../core/results.js'
import { workloadChanges, workloadDigest, type CellWorkload } from '../core/workload.js'
import { baselineCell, hasBaseline, isFirstRun, type BaselineView } from './baseline.js'

/** What identifies a cell of a run for pairing: its place in the matrix and what it measures. */
export interface CellIdentity {
  id: string
  target: string
  scenario: string
  engine: string
  quant: string | null
  workload: CellWorkload
}

/** The cells a run measures (or skips) and the ones of the baseline it reports as missing. */
export interface RunCells {
  cells: readonly CellIdentity[]
  /** Baseline cells outside this predicate (`only`, a shard) are not the run's to measure. */
  selected: (id: string) => boolean
  /** The run's hardware key, and the other keys the store holds (only asked on a first run that compares). */
  hardware?: { key: string; others: readonly string[] }
}

export interface Renames {
  /** New cell id → the unmeasured baseline cell it is judged against. */
  aliases: ReadonlyMap<string, string>
  /** Baseline cells this run did not measure and paired with no new cell. */
  unpaired: readonly string[]
}

/** The baseline as one cell may use it, and why it may not when it cannot. */
export interface CellBaseline {
  view: BaselineView
  /** Said before the verdict's own note (`compared with …`). */
  note?: string
  /** The unmeasured baseline cell this new cell is judged against (a rename). */
  comparedWith?: string
  /** The cell is not compared: its verdict. */
  verdict?: CellVerdict
}

const WORKLOAD_DECIDES = 'the default-branch run after merge measures the new workload'
const NEW_CELL_DECIDES = 'the default-branch run after merge measures it'

/** Cells of the baseline a run does not measure: the file's measured cells and the newest history run's. */
function unmeasured(view: BaselineView, run: RunCells): string[] {
  const ids = new Set<string>()
  for (const cell of view.results?.cells ?? []) if (baselineCell(view, cell.id)) ids.add(cell.id)
  for (const id of Object.keys(view.history.at(-1)?.cells ?? {})) ids.add(id)
  const ran = new Set(run.cells.map((c) => c.id))
  return [...ids].filter((id) => !ran.has(id) && run.selected(id)).sort()
}

/** Pairs new cells with unmeasured baseline cells, one to one (see the top of the file). */
export function findRenames(view: BaselineView, run: RunCells): Renames {
  const missing = unmeasured(view, run)
  const fresh = run.cells.filter((c) => !hasBaseline(view, c.id))
  const known = new Map(missing.flatMap((id) => (baselineCell(view, id) ? [[id, baselineCell(view, id)!]] : [])))
  const alike = (n: CellIdentity, m: CellResult) =>
    m.engine === n.engine &&
    m.quant === n.quant &&
    (m.target === n.target || m.scenario === n.scenario) &&
    workloadChanges(m.workload, n.workload).length === 0
  const candidates = new Map(fresh.map((n) => [n.id, [...known.values()].filter((m) => alike(n, m)).map((m) => m.id)]))
  const aliases = new Map<string, string>()
  for (const [id, [only, ...more]] of candidates) {
    if (only === undefined || more.length) continue
    const rivals = [...candidates.values()].filter((c) => c.includes(only)).length
    if (rivals === 1) aliases.set(id, only)
  }
  const paired = new Set(aliases.values())
  return { aliases, unpaired: missing.filter((id) => !paired.has(id)) }
}

/** The view with `from`'s baseline (file cell and history) under the id `to`. */
function aliased(view: BaselineView, from: string, to: string): BaselineView {
  const moved = (cell: CellResult): CellResult => (cell.id === from ? { ...cell, id: to } : cell)
  const results = view.results && {
    ...view.results,
    cells: view.results.cells.filter((c) => c.id !== to).map(moved),
  }
  const history = view.history.map((entry): HistoryEntry => {
    const { [from]: cell, ...cells } = entry.cells
    if (!cell) return entry
    const { [from]: digest, ...workloads } = entry.workloads ?? {}
    return {
      ...entry,
      cells: { ...cells, [to]: cell },
      ...(entry.workloads && { workloads: digest === undefined ? workloads : { ...workloads, [to]: digest } }),
    }
  })
  return { ...view, ...(results && { results }), history }
}

/**
 * The view without the baseline runs of `id` that measured another workload. A history entry records a digest
 * per cell; one written before digests were kept counts as the workload of the baseline file's cell (the file
 * is the newest default-branch run, so older entries most likely measured what it did).
 */
export function sameWorkload(
  view: BaselineView,
  id: string,
  workload: CellWorkload,
): { view: BaselineView; changes: string[] } {
  const file = view.results?.cells.find((c) => c.id === id)
  const fileChanges = file ? workloadChanges(file.workload, workload) : []
  const digest = workloadDigest(workload)
  const differs = (entry: HistoryEntry) => {
    const recorded = entry.workloads?.[id]
    return recorded === undefined ? fileChanges.length > 0 : recorded !== digest
  }
  const dropped = view.history.filter((e) => e.cells[id] && differs(e))
  if (!fileChanges.length && !dropped.length) return { view, changes: [] }
  const history = view.history.map((entry) => {
    if (!dropped.includes(entry)) return entry
    const { [id]: _gone, ...cells } = entry.cells
    return { ...entry, cells }
  })
  const results =
    view.results && fileChanges.length
      ? { ...view.results, cells: view.results.cells.filter((c) => c.id !== id) }
      : view.results
  return {
    view: { ...view, ...(results && { results }), history },
    changes: fileChanges.length ? fileChanges : ['the workload differs from the one the baseline measured'],
  }
}

// Notes are plain text: the report escapes them for markdown.
const list = (ids: readonly string[], most = 4) =>
  ids.slice(0, most).join(', ') + (ids.length > most ? ` and ${ids.length - most} more` : '')

function notCompared(note: string, decides: string): CellVerdict {
  return { status: 'inconclusive', metrics: {}, note, undecided: [`${note} — ${decides}`] }
}

/** The baseline `cell` is judged against, or the verdict of a cell that has none it may use. */
export function cellBaseline(
  view: BaselineView,
  cell: Pick<CellResult, 'id' | 'workload'>,
  run: RunCells | undefined,
  renames: Renames,
): CellBaseline {
  if (!hasBaseline(view, cell.id)) {
    const from = renames.aliases.get(cell.id)
    if (from) {
      const same = sameWorkload(aliased(view, from, cell.id), cell.id, cell.workload)
      return {
        view: same.view,
        note: `compared with ${from} (renamed? ${from} is not in this run)`,
        comparedWith: from,
      }
    }
    if (renames.unpaired.length)
      return {
        view,
        verdict: notCompared(
          `new cell, while the baseline's ${list(renames.unpaired)} ${renames.unpaired.length === 1 ? 'was' : 'were'} not measured (renamed?): nothing to compare it with`,
          NEW_CELL_DECIDES,
        ),
      }
    const others = run?.hardware?.others ?? []
    if (isFirstRun(view) && others.length && run?.hardware)
      return {
        view,
        verdict: notCompared(
          `no baseline under hardware key ${run.hardware.key}, while the store holds ${list(others)}: if this change moved the key (the matrix file's hardware, the hardware input, or the GPU detected), nothing is compared`,
          'the default-branch run after merge records this key',
        ),
      }
    return { view }
  }
  const same = sameWorkload(view, cell.id, cell.workload)
  if (same.changes.length && !hasBaseline(same.view, cell.id))
    return {
      view: same.view,
      verdict: notCompared(
        `workload changed since the baseline (${same.changes.join(', ')}): not compared`,
        WORKLOAD_DECIDES,
      ),
    }
  return { view: same.view }
}
