/**
 * `verdict.disturbed`: what disturbed the box during the steady rounds a verdict rests on, as each round's host state
 * names it (`rounds[].host.disturbed`, by the rule of host/disturbance.ts). It is said next to the verdict and never
 * changes it: the statistical rules decide the status, and a pass under a disturbed box reads as not a clean pass.
 *
 * One entry per thing that disturbed rounds, not per round: a process busy through every round of a cell is one line
 * (`rounds 2–6, at worst: stress (pid 123) used 98 % of a core during the round`), with the worst round's figure —
 * the most CPU, the most pages swapped in, the least memory left. A thing seen in one round keeps that round's words
 * (`round 2: …`).
 */
import type { CellResult } from '../core/results.js'
import { busyText, MEMORY_FELL, swapText, type RoundHost } from '../core/round-host.js'

/** Entries a verdict keeps; the rest are counted. */
export const MAX_DISTURBED = 12

/** One thing that disturbed rounds: where it was seen (measurement, round number) and its worst round's words. */
interface Source {
  seen: { measurement: number; round: number }[]
  text: string
  /** How hard the worst round was hit, in the thing's own measure (cores, pages, bytes short). */
  worst: number
}

/**
 * What a round's entry is about and how hard it hit: a process by its pid and name, swap, memory under the floor, or
 * the entry itself (a GPU process that appeared reads the same in every round).
 */
function sourceOf(text: string, host: RoundHost): { key: string; weight: number } {
  for (const p of host.cpu?.top ?? [])
    if (text === busyText(p)) return { key: `cpu ${p.pid} ${p.comm}`, weight: p.cores }
  const pages = host.swap?.inPages
  if (pages !== undefined && text === swapText(pages)) return { key: 'swap', weight: pages }
  const min = host.memory?.minBytes
  if (min !== undefined && text.startsWith(MEMORY_FELL)) return { key: 'memory', weight: -min }
  return { key: text, weight: 0 }
}

/** `2, 4–6`: round numbers, runs of consecutive ones as a range. */
function roundList(rounds: readonly number[]): string {
  const runs: [number, number][] = []
  for (const n of rounds) {
    const last = runs[runs.length - 1]
    if (last && n === last[1] + 1) last[1] = n
    else runs.push([n, n])
  }
  return runs.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ')
}

/** `round 2`, `rounds 2–3; re-measurement 1, round 2`: where a thing was seen. */
function whereText(seen: Source['seen']): string {
  const measurements = [...new Set(seen.map((s) => s.measurement))]
  return measurements
    .map((m) => {
      const rounds = seen.filter((s) => s.measurement === m).map((s) => s.round)
      const words = `round${rounds.length > 1 ? 's' : ''} ${roundList(rounds)}`
      return m ? `re-measurement ${m}, ${words}` : words
    })
    .join('; ')
}

/** One entry per thing that disturbed the steady rounds of the measurements, in the order first seen (see the header). */
export function disturbedRounds(measured: readonly Pick<CellResult, 'rounds'>[]): string[] {
  const sources = new Map<string, Source>()
  measured.forEach((m, measurement) => {
    for (const r of m.rounds) {
      if (!r.steady || !r.host?.disturbed) continue
      for (const text of r.host.disturbed) {
        const { key, weight } = sourceOf(text, r.host)
        const source = sources.get(key)
        const seen = { measurement, round: r.index + 1 }
        if (!source) sources.set(key, { seen: [seen], text, worst: weight })
        else {
          source.seen.push(seen)
          if (weight > source.worst) Object.assign(source, { text, worst: weight })
        }
      }
    }
  })
  const all = [...sources.values()].map(
    (s) => `${whereText(s.seen)}${s.seen.length > 1 ? ', at worst' : ''}: ${s.text}`,
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
