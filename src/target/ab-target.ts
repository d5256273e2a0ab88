/**
 * Which judged cells of a target want a same-box A/B, and the verdict an A/B gives them (docs/same-box.md). Under
 * `ab: confirm` a cell wants one when its stored-baseline verdict cannot be trusted on its own: it looks
 * regressed (after its re-measurement), it is inconclusive, there is no stored baseline for it, or the
 * environment it was measured in differs from the baseline's. Under `ab: always` every measured cell does.
 *
 * The A/B verdict replaces the stored-baseline one for the speed metrics where it may (compare/ab-final.ts: an
 * undecided A/B never clears a stored regression, and arms that ran the same engine never clear a verdict the
 * engine change may explain); what the cell fails outside them (output quality against the baseline's outputs,
 * an achieved-length miss) does not depend on the box and still counts. The stored verdict is kept under
 * `ab.stored`.
 */
import { abCellVerdict, abFinal } from '../compare/index.js'
import type { AbMode, CellPlan, GateConfig, TargetPlan } from '../core/plan.js'
import type { CellAb, CellResult, CellVerdict } from '../core/results.js'
import { unreproducedChanges } from '../host/index.js'
import type { AbLaunches } from './ab-launches.js'

/** Why the cell wants an A/B, or undefined when its stored-baseline verdict stands on its own. */
export function abWanted(cell: CellResult, mode: AbMode): string | undefined {
  if (mode === 'off' || cell.status !== 'ok' || !cell.metrics || cell.verdict.skipped) return undefined
  if (mode === 'always') return 'ab: always'
  // A failure outside the speed metrics (output quality, a length miss) does not depend on the box: no A/B clears it.
  if (cell.verdict.failures?.length) return undefined
  const { status } = cell.verdict
  if (status === 'regression') return 'it looks regressed against the stored baseline'
  if (status === 'inconclusive') return 'the stored baseline cannot decide it'
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

export interface AbApplied {
  base: { target: TargetPlan; cells: CellPlan[] }
  /** The PR's gate for the target: the PR defines what it is held to. */
  gate: GateConfig
  sha: string
  /** Launches per arm at least (`ab-launches`). */
  launches: number
  outcome: AbLaunches
}

/** The cell's launches as the results file records them. */
function launchRecords(cell: CellResult, outcome: AbLaunches): CellAb['arms'] {
  return outcome.launches.map((l) => {
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

/** The A/B's verdict on the cell's launches (undecided when none ran); for the loop that decides whether to add a block. */
export function abVerdictOf(
  cellId: string,
  outcome: Pick<AbLaunches, 'launches'>,
  gate: GateConfig,
  noiseFloor?: number,
) {
  const pairs = outcome.launches.map((l) => ({ arm: l.arm, cell: l.cells!.get(cellId)! }))
  return abCellVerdict(pairs, gate, { noiseFloor })
}

/** Whether an A/B verdict is still undecided in a way more launches could change: a metric asks for launches. */
export function wantsLaunches(verdict: CellVerdict): boolean {
  return Object.values(verdict.metrics).some((v) => v.status === 'inconclusive' && v.needs === 'launches')
}

/** The target's cells with the A/B's verdicts, or with why it did not finish; cells it did not test unchanged. */
export function applyAb(cells: readonly CellResult[], applied: AbApplied, noiseFloor?: number): CellResult[] {
  const { outcome, sha } = applied
  const baseMs = sum(outcome.launches.filter((l) => l.arm === 'base').map((l) => l.engineMs))
  const prMs = sum(outcome.launches.filter((l) => l.arm === 'pr').map((l) => l.engineMs))
  const perArm = Math.floor(outcome.launches.length / 2)
  const tested = new Set(applied.base.cells.map((c) => c.id))
  return cells.map((cell) => {
    if (!tested.has(cell.id)) return cell
    const record = { base: sha, launches: perArm, arms: launchRecords(cell, outcome), baseMs, prMs }
    if (outcome.stopped) return abNotRun(cell, outcome.stopped, { ...record, launches: applied.launches })
    const ab = abVerdictOf(cell.id, outcome, applied.gate, noiseFloor)
    const baseArm = outcome.launches.filter((l) => l.arm === 'base').map((l) => l.fingerprint)
    const sameEngine = unreproducedChanges(cell.host?.baseline, cell.host?.fingerprint, baseArm)
    const said = `A/B on this box, ABBA × ${perArm}, against the base ${sha.slice(0, 7)}${outcome.ended ? ` (${outcome.ended})` : ''}`
    return {
      ...cell,
      ab: {
        status: 'ran',
        ...record,
        stored: cell.verdict,
        ...(sameEngine.length && { sameEngine }),
        ...(outcome.ended && { ended: outcome.ended }),
      },
      verdict: abFinal({ stored: cell.verdict, ab, said, sameEngine }),
    }
  })
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0)
