/**
 * `verdict.disturbed`: what disturbed the box during the steady rounds a verdict rests on, as each round's host state
 * names it (`rounds[].host.disturbed`, by the rule of host/disturbance.ts). It is said next to the verdict and never
 * changes it: the statistical rules decide the status, and a pass under a disturbed box reads as not a clean pass.
 */
import type { CellResult } from '../core/results.js'

/** Entries a verdict keeps; the rest are counted. */
export const MAX_DISTURBED = 12

/** `round 2: …` per disturbed steady round of the first measurement, `re-measurement 1, round 3: …` of the others. */
export function disturbedRounds(measured: readonly Pick<CellResult, 'rounds'>[]): string[] {
  const all = measured.flatMap((m, i) =>
    m.rounds.flatMap((r) =>
      r.steady
        ? (r.host?.disturbed ?? []).map((d) => `${i ? `re-measurement ${i}, ` : ''}round ${r.index + 1}: ${d}`)
        : [],
    ),
  )
  if (all.length <= MAX_DISTURBED) return all
  return [...all.slice(0, MAX_DISTURBED - 1), `… and ${all.length - MAX_DISTURBED + 1} more`]
}

/**
 * The judged cell with `verdict.disturbed` from the measurements it was decided on; `kept`, what a verdict decided
 * before said (a cell read back, or judged again after its A/B), when those rounds are no longer all here.
 */
export function withDisturbed(
  cell: CellResult,
  measured: readonly Pick<CellResult, 'rounds'>[],
  kept?: readonly string[],
): CellResult {
  if (cell.status !== 'ok') return cell
  const found = disturbedRounds(measured)
  const disturbed = kept?.length && kept.length >= found.length ? [...kept] : found
  const { disturbed: old = [], ...verdict } = cell.verdict
  // Nothing to change: the cell itself, as the judge returns a verdict it keeps.
  if (old.length === disturbed.length && old.every((d, i) => d === disturbed[i])) return cell
  return disturbed.length ? { ...cell, verdict: { ...verdict, disturbed } } : { ...cell, verdict }
}
