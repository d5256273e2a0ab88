/**
 * Memory release between targets. An engine's memory can come back to the system seconds after
 * its processes are gone (a driver or a unified-memory box freeing a model's pages late), and the
 * next target launched into that gap can trip the memory guard through no fault of its own. So
 * the next target launches only once available memory is back within the previous target's
 * memory floor of what it was just before that target launched, or after a bounded wait, with a
 * progress line while it waits.
 */
import { formatBytes, formatDuration } from '../core/format.js'
import type { Logger } from '../core/log.js'
import type { MemoryFloor } from '../core/plan.js'
import { floorBytes, readMemInfo } from './memory.js'
import type { MemInfo } from './types.js'

export const RELEASE_WAIT_MS = 60_000
const POLL_MS = 500
const PROGRESS_MS = 10_000

export interface MemoryReleaseOptions {
  /** The target that ran before (for the progress line). */
  previous: string
  /** Available memory just before `previous` launched. */
  before: MemInfo
  /** `previous`'s memory floor: the slack allowed below `before`. */
  floor: MemoryFloor
  log: Logger
  signal?: AbortSignal
  read?: () => Promise<MemInfo>
  maxWaitMs?: number
  pollMs?: number
  progressMs?: number
}

export type MemoryRelease = { kind: 'back' | 'timeout' | 'aborted'; waitedMs: number; availableBytes: number }

export async function waitMemoryReleased(o: MemoryReleaseOptions): Promise<MemoryRelease> {
  const read = o.read ?? readMemInfo
  const maxWaitMs = o.maxWaitMs ?? RELEASE_WAIT_MS
  const progressMs = o.progressMs ?? PROGRESS_MS
  const want = o.before.availableBytes - floorBytes(o.floor, o.before.totalBytes)
  const started = Date.now()
  let nextProgress = progressMs
  for (;;) {
    const waitedMs = Date.now() - started
    const { availableBytes } = await read().catch(() => ({ availableBytes: Number.POSITIVE_INFINITY }))
    if (availableBytes >= want) return { kind: 'back', waitedMs, availableBytes }
    if (o.signal?.aborted) return { kind: 'aborted', waitedMs, availableBytes }
    if (waitedMs >= maxWaitMs) {
      o.log.warn(
        `${o.previous}: memory not back after ${formatDuration(maxWaitMs)} (${formatBytes(availableBytes)} available, ${formatBytes(want)} wanted); launching the next target anyway`,
      )
      return { kind: 'timeout', waitedMs, availableBytes }
    }
    if (waitedMs >= nextProgress) {
      nextProgress += progressMs
      o.log.info(
        `${o.previous}: waiting for its memory to come back (${formatBytes(availableBytes)} available, ${formatBytes(want)} wanted, ${formatDuration(Math.round(waitedMs / 100) * 100)} of ${formatDuration(maxWaitMs)})`,
      )
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(o.pollMs ?? POLL_MS, Math.max(1, maxWaitMs - waitedMs))),
    )
  }
}
