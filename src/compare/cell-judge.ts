/**
 * The one place a cell's verdict is decided: the verdict rules of a run bound to its baseline, each cell judged
 * with its own target's gate and `noise-floor`. Every verdict a cell gets goes through `decide` — measured here
 * (after each measurement, while its server is still up), with its re-measurements pooled, skipped by
 * `select: changed`, read back from a results file (a shard's, or `compare`'s CURRENT), and after a same-box A/B
 * or the reason none ran — which returns the judged cell as a new object and leaves the one it was given as it
 * was. What to measure next is asked here too: more warm rounds, whether a cell wants an A/B, whether an A/B
 * wants another block.
 */
import { defaultGateConfig } from '../config/settings.js'
import type { AbMode, TargetPlan } from '../core/plan.js'
import type { CellAb, CellResult } from '../core/results.js'
import { abDecided, abNotRun, abUndecided, abWanted, type AbEvidence, type AbRun } from './ab-verdict.js'
import { baselineCell, type BaselineView } from './baseline.js'
import { cellAgreement } from './cell-quality.js'
import { confirmCell } from './confirm.js'
import { cellCreep } from './creep.js'
import { NOISE_FLOOR } from './noise.js'
import { fingerprintChanges } from './fingerprint-changes.js'
import { judgeCell, skippedFigures, type JudgeOptions } from './judge.js'
import { cellBaseline, findRenames, type CellBaseline, type Renames, type RunCells } from './match.js'
import { moreRounds } from './more-rounds.js'
import { serverChanges } from './server-changes.js'
import { withDisturbed } from './disturbed.js'
import type { ShiftRules } from './history-shifts.js'

/** The verdict from its evidence, before the smallest detectable changes are gathered. */
function decideOn(e: Evidence, bound: Bound): CellResult {
  if ('measured' in e) return judgeMeasured(e.measured, e.fresh ?? false, bound)
  if ('read' in e) return judgeRead(e.read, bound)
  if ('ab' in e) {
    const { gate, noiseFloor } = bound.rulesOf(e.judged.target)
    return abDecided(e.judged, e.ab, gate, noiseFloor)
  }
  return abNotRun(e.judged, e.abNotRun, e.record)
}

/** A default-branch cell with the creep of its gated metrics over the history it was judged against (creep.ts). */
function withCreep(cell: CellResult, bound: Bound, sha: string): CellResult {
  const { gate, noiseFloor, creepWindow } = bound.rulesOf(cell.target)
  const { view } = bound.baselineOf(cell)
  const alerts = cellCreep(cell, view.history, gate, {
    sha,
    window: creepWindow,
    noiseFloor: noiseFloor ?? NOISE_FLOOR,
  })
  return alerts.length ? { ...cell, verdict: { ...cell.verdict, creep: alerts } } : cell
}

/** `verdict.mde`: each compared metric's smallest detectable change, from the verdict that decided it. */
function withMde(cell: CellResult): CellResult {
  const entries = Object.entries(cell.verdict.metrics).filter(([, v]) => v?.mde !== undefined)
  const { mde: _old, ...rest } = cell.verdict
  if (!entries.length) return _old === undefined ? cell : { ...cell, verdict: rest }
  return { ...cell, verdict: { ...rest, mde: Object.fromEntries(entries.map(([m, v]) => [m, v!.mde!])) } }
}

/** What a cell's verdict is decided from. */
export type Evidence =
  /** A measured cell: its first measurement, and its re-measurements pooled (`fresh`: each from a new launch). */
  | { measured: readonly [CellResult, ...CellResult[]]; fresh?: boolean }
  /** A cell read back from a results file: judged again, unless a same-box A/B decided it (a shard's). */
  | { read: CellResult }
  /** A judged cell and its target's same-box A/B. */
  | { judged: CellResult; ab: AbEvidence }
  /** A judged cell whose A/B did not run, and why. */
  | { judged: CellResult; abNotRun: string; record?: Omit<CellAb, 'status' | 'reason'> }

export interface CellJudge {
  /**
   * The cell judged on its evidence. A cell that could not be measured keeps its error; a skipped cell gets the
   * baseline's figures, never a pass or a failure. The judged cell also records what its verdict relied on: the
   * agreement of its greedy outputs with the baseline cell's, and what changed in the environment since the
   * baseline cell was measured.
   */
  decide(evidence: Evidence): CellResult
  /** Warm rounds to add before deciding (0: decide now), within `maxRounds` rounds in all. */
  moreRounds(cell: CellResult, maxRounds: number): number
  /** Why the judged cell wants a same-box A/B under its target's `ab` mode; undefined when its verdict stands alone. */
  abWanted(cell: CellResult): string | undefined
  /**
   * Whether a same-box A/B's launches so far leave the judged cell undecided in a way another pair could change; its
   * verdict against the stored baseline says what launch-to-launch spread main measured (compare/ab-cell.ts).
   */
  abUndecided(cell: Pick<CellResult, 'id' | 'target' | 'verdict'>, launches: readonly AbRun[]): boolean
  /** New cells judged against a baseline cell this run did not measure, and those left unpaired (compare/match.ts). */
  readonly renames: Renames
}

/** What a target's cells are judged by: the gate and `noise-floor` its level shifts are found under, and its `ab`. */
export interface TargetRules extends ShiftRules {
  ab: AbMode
  /** `creep-window` (default CREEP_WINDOW). */
  creepWindow?: number
  /** Measured by another tool: no same-box A/B. */
  external?: boolean
}

/**
 * Each target's rules by id: its gate, `noise-floor` and `ab`. A cell of a target the plan does not define (a
 * results file's, read by `compare` without its matrix file) is held to the built-in gate, never to none.
 */
export function targetRules(targets: readonly TargetPlan[]): (target: string) => TargetRules {
  const rules = new Map(Object.entries(rulesByTarget(targets)))
  return (target) => rules.get(target) ?? { gate: defaultGateConfig(), ab: 'off' }
}

/** Each target's rules, by target id. */
export function rulesByTarget(targets: readonly TargetPlan[]): Record<string, TargetRules> {
  return Object.fromEntries(
    targets.map((t) => [
      t.id,
      {
        gate: t.gate,
        noiseFloor: t.settings.noiseFloor,
        ab: t.settings.ab.mode,
        external: !!t.external,
        creepWindow: t.settings.creepWindow,
      },
    ]),
  )
}

/**
 * The rules of a run bound to its baseline. With `run` (the cells the run measures or skips), a new cell may be
 * judged against the baseline cell it renames, and a run that left baseline cells unmeasured has no clean new
 * cells; without it (one cell judged alone) neither applies. Every cell is judged on the baseline runs that
 * measured its workload. With `creep` (a default-branch run: its commit), each cell it decides with measurements —
 * its own or a shard's — is also looked at for creep over main's history (creep.ts).
 */
export function cellJudge(
  view: BaselineView,
  targets: readonly TargetPlan[],
  run?: RunCells,
  options: { creep?: { sha: string } } = {},
): CellJudge {
  const rulesOf = targetRules(targets)
  const renames: Renames = run ? findRenames(view, run) : { aliases: new Map(), unpaired: [] }
  const bound: Bound = { rulesOf, baselineOf: (cell) => cellBaseline(view, cell, run, renames) }
  const creep = options.creep
  return {
    renames,
    decide(e) {
      const decided = disturbedBy(e, withMde(decideOn(e, bound)))
      // Measured here or read back from a shard's results file (a sharded default-branch run merges them): both.
      return creep ? withCreep(decided, bound, creep.sha) : decided
    },
    moreRounds(cell, maxRounds) {
      const base = bound.baselineOf(cell)
      const { gate } = rulesOf(cell.target)
      return base.verdict ? 0 : moreRounds(cell, base.view, gate, { ...judgeOptions(rulesOf(cell.target)), maxRounds })
    },
    abWanted(cell) {
      const { ab, external } = rulesOf(cell.target)
      return external ? undefined : abWanted(cell, ab)
    },
    abUndecided(cell, launches) {
      const { gate, noiseFloor } = rulesOf(cell.target)
      return abUndecided(cell, launches, gate, noiseFloor)
    },
  }
}

/** The verdict with what disturbed the box during the rounds it rests on (disturbed.ts). */
function disturbedBy(e: Evidence, cell: CellResult): CellResult {
  if ('measured' in e) return withDisturbed(cell, e.measured)
  const given = 'read' in e ? e.read : e.judged
  return withDisturbed(cell, [given], given.verdict.disturbed)
}

/** The run's rules and baseline, bound. */
interface Bound {
  rulesOf(target: string): TargetRules
  baselineOf(cell: CellResult): CellBaseline
}

function judgeOptions({ noiseFloor }: TargetRules): JudgeOptions {
  return noiseFloor === undefined ? {} : { noiseFloor }
}

/** A measured cell: its first measurement judged, then with its re-measurements pooled. */
function judgeMeasured(
  [first, ...again]: readonly [CellResult, ...CellResult[]],
  fresh: boolean,
  { rulesOf, baselineOf }: Bound,
): CellResult {
  if (first.status !== 'ok') return first
  const rules = rulesOf(first.target)
  const options = judgeOptions(rules)
  const base = baselineOf(first)
  if (first.verdict?.skipped) return { ...first, verdict: skippedFigures(first.id, base.view, rules.gate, options) }
  if (base.verdict) return { ...first, verdict: base.verdict }
  const verdict = withNote(judgeCell(first, base.view, rules.gate, options), base)
  const judged = { ...first, verdict, ...evidence(first, base.view) }
  if (!again.length) return withServerChanges(judged, [first], base)
  const confirmed = confirmCell(judged, again, base.view, rules.gate, { ...options, fresh })
  return withServerChanges({ ...judged, verdict: withNote(confirmed, base) }, [first, ...again], base)
}

/** A cell read back: an A/B's verdict stands; one whose A/B did not run says so again once judged anew. */
function judgeRead(cell: CellResult, bound: Bound): CellResult {
  if (cell.ab?.status === 'ran') return cell
  const judged = judgeMeasured([cell], false, bound)
  if (cell.ab?.status !== 'not-run' || judged === cell) return judged
  const { status: _status, reason = '', ...record } = cell.ab
  return abNotRun(judged, reason, record)
}

/** The verdict with the engine counters that changed against the baseline cell's rounds, when any did. */
function withServerChanges(cell: CellResult, measured: readonly CellResult[], base: CellBaseline): CellResult {
  const baseCell = baselineCell(base.view, base.comparedWith ?? cell.id)
  if (!baseCell) return cell
  const changes = serverChanges(
    measured.flatMap((m) => m.rounds),
    baseCell.rounds,
  )
  return changes.length ? { ...cell, verdict: { ...cell.verdict, serverChanges: changes } } : cell
}

/** The verdict with the baseline's note said first, and the cell it was compared with when that is another. */
function withNote(verdict: CellResult['verdict'], base: CellBaseline): CellResult['verdict'] {
  const { note, comparedWith } = base
  const noted =
    !note || verdict.note?.startsWith(note)
      ? verdict
      : { ...verdict, note: verdict.note ? `${note}; ${verdict.note}` : note }
  return comparedWith ? { ...noted, comparedWith } : noted
}

/** What the results file records next to the verdict: the greedy agreement and the environment changes, as new objects. */
function evidence(cell: CellResult, view: BaselineView): Pick<CellResult, 'quality' | 'host'> {
  const agreement = cellAgreement(cell, view)
  const before = baselineCell(view, cell.id)?.host?.fingerprint
  const changes = cell.host && fingerprintChanges(before, cell.host.fingerprint)
  // The baseline's fingerprint goes with the changes: a same-box A/B checks its arms against it (ab-verdict.ts).
  const host = changes?.length && cell.host ? { ...cell.host, changes, baseline: before } : undefined
  return {
    ...(agreement !== undefined && cell.quality !== undefined && { quality: { ...cell.quality, agreement } }),
    ...(host && { host }),
  }
}
