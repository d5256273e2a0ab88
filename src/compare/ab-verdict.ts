/**
 * A same-box A/B as the judge sees it (pure): which judged cells want one, and the verdict its launches give them.
 * Under `ab: confirm` a cell wants one when its stored-baseline verdict cannot be trusted on its own: it looks
 * regressed (after its re-measurement), it is inconclusive, there is no stored baseline for it, or the
 * environment it was measured in differs from the baseline's. Under `ab: always` every measured cell does.
 *
 * The A/B verdict replaces the stored-baseline one for the speed metrics where it may (ab-final.ts: an undecided
 * A/B never clears a stored regression, and arms that ran the same engine never clear a verdict the engine change
 * may explain); what the cell fails outside them (output quality against the baseline's outputs, an
 * achieved-length miss) does not depend on the box and still counts. The stored verdict is kept under
 * `ab.stored`. An A/B that did not run, or stopped before its last launch, leaves the stored verdict standing and
 * says why.
 */
import type { Fingerprint } from '../core/host.js'
import type { AbMode, GateConfig } from '../core/plan.js'
import type { AbArm, CellAb, CellResult, CellVerdict } from '../core/results.js'
import { abCellVerdict } from './ab-cell.js'
import { abFinal } from './ab-final.js'
import { unreproducedChanges } from './fingerprint-changes.js'
import { undecidedOnlyBySlo } from './slo-reach.js'

/** One launch of an A/B: its arm, the cells it measured by id (none when it failed), its engine time and what it ran. */
export interface AbRun {
  arm: AbArm
  cells?: ReadonlyMap<string, CellResult>
  error?: string
  /** Launch to teardown, ms. */
  engineMs: number
  /** Engine version, image, launched program, from the launch's own reading. */
  fingerprint?: Fingerprint
}

/** What a target's A/B measured: the base commit, its launches in order, and why it stopped or ended early. */
export interface AbEvidence {
  sha: string
  /** Launches per arm at least (`ab-launches`). */
  minimum: number
  launches: readonly AbRun[]
  /** Why the A/B ended before its last launch (a failed launch, the budget, a cancel): nothing is paired. */
  stopped?: string
  /** Why no more launches ran while a cell was still undecided (the most per arm, or the budget). */
  ended?: string
}

/** Why the cell wants an A/B under `mode`, or undefined when its stored-baseline verdict stands on its own. */
export function abWanted(cell: CellResult, mode: AbMode): string | undefined {
  if (mode === 'off' || cell.status !== 'ok' || !cell.metrics || cell.verdict.skipped) return undefined
  if (mode === 'always') return 'ab: always'
  // A failure outside the speed metrics (output quality, a length miss) does not depend on the box: no A/B clears it.
  if (cell.verdict.failures?.length) return undefined
  const { status } = cell.verdict
  if (status === 'regression') return 'it looks regressed against the stored baseline'
  // An SLO neither side meets is decided by a looser SLO, never by launches (slo-reach.ts).
  if (status === 'inconclusive' && !undecidedOnlyBySlo(cell.verdict)) return 'the stored baseline cannot decide it'
  if (status === 'new') return 'there is no stored baseline for it'
  const changes = cell.host?.changes
  if (changes?.length) return `the environment differs from the stored baseline's (${changes.join('; ')})`
  return undefined
}

/** The cell with the reason no A/B ran; its stored-baseline verdict stands, and says so. */
export function abNotRun(cell: CellResult, reason: string, extra: Omit<CellAb, 'status' | 'reason'> = {}): CellResult {
  const note = `same-box A/B not run: ${reason}; the stored-baseline verdict stands`
  return {
    ...cell,
    ab: { status: 'not-run', reason, ...extra },
    verdict: { ...cell.verdict, note: cell.verdict.note ? `${cell.verdict.note}; ${note}` : note },
  }
}

/**
 * The A/B's own verdict on one cell's launches so far. `final`: no pair follows, so the sequential test's
 * undecided loss past twice the limit is a regression (compare/ab.ts).
 */
function abVerdictOf(
  cell: Pick<CellResult, 'id' | 'verdict'>,
  launches: readonly AbRun[],
  gate: GateConfig,
  noiseFloor: number | undefined,
  final: boolean,
): CellVerdict {
  const pairs = launches.map((l) => ({ arm: l.arm, cell: l.cells!.get(cell.id)! }))
  return abCellVerdict(pairs, gate, { noiseFloor, final, stored: cell.verdict })
}

/**
 * Whether the launches so far leave the judged cell (its verdict against the stored baseline) undecided in a way more
 * launches could change: a metric asks for launches.
 */
export function abUndecided(
  cell: Pick<CellResult, 'id' | 'verdict'>,
  launches: readonly AbRun[],
  gate: GateConfig,
  noiseFloor?: number,
): boolean {
  const verdict = abVerdictOf(cell, launches, gate, noiseFloor, false)
  // A metric decided a regression: the cell is one whatever its other metrics come to, so no launch can change it.
  if (Object.values(verdict.metrics).some((v) => v.status === 'regression')) return false
  return Object.values(verdict.metrics).some((v) => v.status === 'inconclusive' && v.needs === 'launches')
}

/** The cell's launches as the results file records them. */
function launchRecords(cell: CellResult, launches: readonly AbRun[]): CellAb['arms'] {
  return launches.map((l) => {
    const measured = l.cells?.get(cell.id)
    return {
      arm: l.arm,
      status: measured ? ('ok' as const) : ('error' as const),
      ...(l.error && { error: l.error }),
      metrics: measured?.metrics ?? null,
      rounds: measured?.rounds ?? [],
      engineMs: l.engineMs,
      ...(l.fingerprint && { fingerprint: l.fingerprint }),
    }
  })
}

/** A judged cell after its target's A/B: the A/B's verdict where it may speak, or why it did not finish. */
export function abDecided(cell: CellResult, ab: AbEvidence, gate: GateConfig, noiseFloor?: number): CellResult {
  const { launches, sha } = ab
  const engine = (arm: AbArm) => sum(launches.filter((l) => l.arm === arm).map((l) => l.engineMs))
  const perArm = Math.floor(launches.length / 2)
  const record = {
    base: sha,
    launches: perArm,
    arms: launchRecords(cell, launches),
    baseMs: engine('base'),
    prMs: engine('pr'),
  }
  if (ab.stopped) return abNotRun(cell, ab.stopped, { ...record, launches: ab.minimum })
  const verdict = abVerdictOf(cell, launches, gate, noiseFloor, true)
  const baseArm = launches.filter((l) => l.arm === 'base').map((l) => l.fingerprint)
  const sameEngine = unreproducedChanges(cell.host?.baseline, cell.host?.fingerprint, baseArm)
  const said = `A/B on this box, ABBA × ${perArm}, against the base ${sha.slice(0, 7)}${ab.ended ? ` (${ab.ended})` : ''}`
  return {
    ...cell,
    ab: {
      status: 'ran',
      ...record,
      stored: cell.verdict,
      ...(sameEngine.length && { sameEngine }),
      ...(ab.ended && { ended: ab.ended }),
    },
    verdict: abFinal({ stored: cell.verdict, ab: verdict, said, sameEngine }),
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0)
