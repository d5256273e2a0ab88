/** Seeded randomness for the simulator: same seed, same schedule. */

import { mulberry32, normal } from '../core/random.js'

export type Rng = () => number

/** Uniform in [0, 1); the seed is mixed first so that small seeds (1, 2, 3) start far apart. */
export function createRng(seed: number): Rng {
  return mulberry32((Math.floor(seed) ^ 0x9e3779b9) >>> 0)
}

/** The random stream of untimed requests (the quality probe), apart from the benchmark's for the same seed. */
export function sideStream(seed: number): Rng {
  return createRng(Math.floor(seed) ^ 0x5eed51de)
}

/** Standard normal by Box–Muller (core/random.ts). */
export { normal }

/**
 * Multiplicative jitter with mean exactly 1 and the given coefficient of variation
 * (log-normal, so a step never gets a negative or zero duration).
 */
export function jitterFactor(rng: Rng, cv: number): number {
  if (cv <= 0) return 1
  const sigma = Math.sqrt(Math.log(1 + cv * cv))
  return Math.exp(sigma * normal(rng) - (sigma * sigma) / 2)
}

export const BAG_SIZE = 20

/**
 * Draws outcomes 0..n-1 from a "shuffle bag": every block of BAG_SIZE draws holds each outcome
 * in proportion to `weights` (largest-remainder rounding), in seeded order. The mean over a
 * run then sits on the profile's figure instead of wandering with sampling noise, which a
 * short single-stream request (~85 verify steps) would otherwise show at several percent.
 */
export function createBag(weights: readonly number[], rng: Rng): () => number {
  const total = weights.reduce((a, b) => a + b, 0)
  const exact = weights.map((w) => (w / total) * BAG_SIZE)
  const counts = exact.map(Math.floor)
  const order = exact.map((e, i) => ({ i, rest: e - Math.floor(e) })).sort((a, b) => b.rest - a.rest || a.i - b.i)
  for (let j = 0; counts.reduce((a, b) => a + b, 0) < BAG_SIZE; j++) counts[order[j].i]++
  const template = counts.flatMap((c, i) => Array<number>(c).fill(i))
  let bag: number[] = []
  return () => {
    if (bag.length === 0) {
      bag = template.slice()
      for (let i = bag.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1))
        ;[bag[i], bag[j]] = [bag[j], bag[i]]
      }
    }
    return bag.pop() as number
  }
}
