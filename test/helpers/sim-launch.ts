/**
 * Seeded noisy launches for the Monte-Carlo tests: a launch's level, its rounds with per-round noise, an occasional
 * slow round and a per-launch offset, and the cells measured on it (shapes from builders.ts).
 */
import type { RoundResult } from '../../src/core/measurements.js'
import type { CellResult } from '../../src/core/results.js'
import { mulberry32 } from '../../src/core/random.js'
import { cell, round } from './builders.js'

/** Seeded standard normal draws (Box-Muller over mulberry32), so the simulation is reproducible. */
export function normalSource(seed: number): () => number {
  const uniform = uniformSource(seed)
  let spare: number | undefined
  return () => {
    if (spare !== undefined) {
      const s = spare
      spare = undefined
      return s
    }
    const u = 1 - uniform()
    const v = uniform()
    const r = Math.sqrt(-2 * Math.log(u))
    spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }
}

/** Noise of a simulated benchmark, relative: per-round normal noise, a per-launch offset and occasional slow rounds. */
export interface SimNoise {
  /** Coefficient of variation of one round's figure (normal, independent between rounds). */
  cv: number
  /** Standard deviation of a launch's offset, shared by every round of that launch (restart-to-restart noise). */
  restart?: number
  /** Heavy tail: a share of rounds runs slower by `by` (decode × (1 − by), TTFT × (1 + by)), as thermal throttling does. */
  slow?: { share: number; by: number }
}

/** The figures a simulated launch measures around, and its draws. */
export interface SimLaunch {
  decode: number
  ttft: number
  draw: () => number
  uniform: () => number
  noise: SimNoise
}

export function launch(
  level: { decode: number; ttft: number },
  noise: SimNoise,
  draw: () => number,
  uniform: () => number,
): SimLaunch {
  const offset = () => 1 + (noise.restart ?? 0) * draw()
  return { decode: level.decode * offset(), ttft: level.ttft * offset(), draw, uniform, noise }
}

export function simRound(at: SimLaunch, index: number, steady: boolean): RoundResult {
  const slow = at.noise.slow && at.uniform() < at.noise.slow.share ? at.noise.slow.by : 0
  const jitter = () => 1 + at.noise.cv * at.draw()
  return round(index, steady, { decode: at.decode * jitter() * (1 - slow), ttft: at.ttft * jitter() * (1 + slow) })
}

/** One measurement of a cell on a launch: `rounds` rounds, the first `discard` left out of the steady state. */
export function simCell(id: string, at: SimLaunch, rounds: number, discard: number): CellResult {
  return cell(
    id,
    Array.from({ length: rounds }, (_, i) => simRound(at, i, i >= discard)),
  )
}

/** The cell with `more` steady rounds added on the same launch, its steady state recomputed. */
export function extendCell(c: CellResult, at: SimLaunch, more: number): CellResult {
  const n = c.rounds.length
  return cell(c.id, [...c.rounds, ...Array.from({ length: more }, (_, i) => simRound(at, n + i, true))])
}

/** Seeded uniform draws: the project's own PRNG, so the trials are the same sequence everywhere. */
export const uniformSource = mulberry32
