/** mulberry32: a small, fast 32-bit PRNG, uniform in [0, 1); the same sequence for the same seed everywhere. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Standard normal by Box–Muller, from two uniform draws of `uniform`. */
export function normal(uniform: () => number): number {
  const u = 1 - uniform()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform())
}
