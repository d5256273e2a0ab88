/** Memory release between targets: wait until available memory is back within the floor of what it was before the previous launch, bounded, with progress. */
import { describe, expect, it } from 'vitest'
import { timedInLoop } from '../helpers/lag-trace.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import type { MemoryFloor } from '../../src/core/plan.js'
import { waitMemoryReleased } from '../../src/server/memory-release.js'
import type { MemInfo } from '../../src/server/types.js'

const GiB = 1024 ** 3
const total = 128 * GiB
const before: MemInfo = { availableBytes: 100 * GiB, totalBytes: total }
const floor: MemoryFloor = { kind: 'bytes', value: 4 * GiB }

/** Available memory that climbs by `step` GiB per read from `start` GiB, counting the reads. */
function climbing(start: number, step: number) {
  let reads = 0
  return {
    read: async (): Promise<MemInfo> => ({ availableBytes: (start + step * reads++) * GiB, totalBytes: total }),
    get reads() {
      return reads
    },
  }
}

describe('waitMemoryReleased', () => {
  it('returns at once when memory is already back within the floor', async () => {
    const mem = climbing(97, 0)
    const outcome = await waitMemoryReleased({
      previous: 'a',
      before,
      floor,
      log: memoryLogger(),
      read: mem.read,
      pollMs: 1,
    })
    expect(outcome).toMatchObject({ kind: 'back', availableBytes: 97 * GiB })
    expect(mem.reads).toBe(1)
  })

  it('waits while the previous engine releases its memory, until it is within the floor', async () => {
    // 60, 70, 80, 90, 100 GiB: 96 GiB (100 − 4) is first reached on the fifth read.
    const mem = climbing(60, 10)
    const log = memoryLogger()
    const outcome = await waitMemoryReleased({
      previous: 'a',
      before,
      floor,
      log,
      read: mem.read,
      pollMs: 5,
      progressMs: 8,
    })
    expect(outcome).toMatchObject({ kind: 'back', availableBytes: 100 * GiB })
    expect(mem.reads).toBe(5)
    const progress = log.lines.filter((l) => l.includes('waiting for its memory'))
    expect(progress.length).toBeGreaterThan(0)
    for (const line of progress)
      expect(line).toMatch(
        /^a: waiting for its memory to come back \((60|70|80|90)GiB available, 96GiB wanted, .+ of 1m\)$/,
      )
  })

  it('a percent floor is a share of total memory', async () => {
    const mem = climbing(90, 0)
    // 10 % of 128 GiB = 12.8 GiB below 100 GiB: 90 GiB is back.
    const outcome = await waitMemoryReleased({
      previous: 'a',
      before,
      floor: { kind: 'percent', value: 0.1 },
      log: memoryLogger(),
      read: mem.read,
      pollMs: 1,
    })
    expect(outcome.kind).toBe('back')
  })

  it('gives up after the bound with a warning, and the next target launches anyway', async () => {
    const mem = climbing(50, 0)
    const log = memoryLogger()
    const timed = await timedInLoop(() =>
      waitMemoryReleased({ previous: 'a', before, floor, log, read: mem.read, maxWaitMs: 120, pollMs: 10 }),
    )
    const outcome = timed.value
    expect(outcome.kind).toBe('timeout')
    // Date.now() decides, in whole ms, so the wait reads at least 119 ms on performance.now(). It polls every 10 ms
    // and sleeps only the rest of the 120 ms at the end: 13 timers at most, each rounded to whole ms.
    expect(timed.elapsed).toBeGreaterThanOrEqual(119)
    expect(timed.elapsed).toBeLessThanOrEqual(timed.bound(120, 13))
    expect(
      log.lines.some(
        (l) => l.includes('a: memory not back after 120ms') && l.includes('launching the next target anyway'),
      ),
    ).toBe(true)
  })

  it('stops waiting when the run is cancelled', async () => {
    const outcome = await waitMemoryReleased({
      previous: 'a',
      before,
      floor,
      log: memoryLogger(),
      read: climbing(50, 0).read,
      signal: AbortSignal.abort(),
      pollMs: 1,
    })
    expect(outcome.kind).toBe('aborted')
  })
})
