import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { traceLag } from './lag-trace.js'
import { WAKE_MS } from './load.js'

/**
 * The block is four wake-ups of a loaded runner long, so a spell the runner adds near a quiet stamp (a wake-up's
 * delay at most) is still told apart from it.
 */
const BLOCK_MS = 4 * WAKE_MS

/** Holds the loop for `ms` of wall time. */
function block(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe('traceLag', () => {
  it(`bounds a timestamp taken after a ${BLOCK_MS} ms block and a stamp taken before it, and nothing far away`, async () => {
    const lag = traceLag()
    try {
      await sleep(30)
      const quiet = performance.now()
      await sleep(30)
      const stamp = performance.now()
      block(BLOCK_MS)
      const after = performance.now()
      await sleep(60)
      const later = performance.now()
      await sleep(10)
      // The tick that waited out the block is at least the block late, less its 1 ms interval, and at most the
      // block and the wake-up that ends it.
      expect(lag.lateBy(after)).toBeGreaterThanOrEqual(BLOCK_MS)
      expect(lag.lateBy(after)).toBeLessThan(BLOCK_MS + WAKE_MS)
      expect(lag.heldAfter(stamp)).toBeGreaterThanOrEqual(BLOCK_MS)
      // A timestamp 60 ms after the block, and one 30 ms before it, are not charged with it.
      expect(lag.lateBy(later)).toBeLessThan(BLOCK_MS)
      expect(lag.lateBy(quiet)).toBeLessThan(BLOCK_MS)
      expect(lag.heldAfter(quiet)).toBeLessThan(BLOCK_MS)
    } finally {
      lag.stop()
    }
  })
})
