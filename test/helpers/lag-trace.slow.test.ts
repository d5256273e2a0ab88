import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { traceLag } from './lag-trace.js'

/** Holds the loop for `ms` of wall time. */
function block(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe('traceLag', () => {
  it('bounds a timestamp taken after a 50 ms block and a stamp taken before it, and nothing far away', async () => {
    const lag = traceLag()
    try {
      await sleep(30)
      const quiet = performance.now()
      await sleep(30)
      const stamp = performance.now()
      block(50)
      const after = performance.now()
      await sleep(60)
      const later = performance.now()
      await sleep(10)
      // The tick that waited out the block is at least 49 ms late (1 ms interval) and at most the
      // block plus some scheduling.
      expect(lag.lateBy(after)).toBeGreaterThanOrEqual(50)
      expect(lag.lateBy(after)).toBeLessThan(100)
      expect(lag.heldAfter(stamp)).toBeGreaterThanOrEqual(50)
      // A timestamp 60 ms after the block, and one 30 ms before it, are not charged with it.
      expect(lag.lateBy(later)).toBeLessThan(50)
      expect(lag.lateBy(quiet)).toBeLessThan(50)
      expect(lag.heldAfter(quiet)).toBeLessThan(50)
    } finally {
      lag.stop()
    }
  })
})
