/**
 * The memory guard: unified-memory boxes (GB10) freeze instead of OOM-killing when memory
 * runs out, so while a target runs we sample MemAvailable and pull the plug below a floor.
 * Sampling is one pread of /proc/meminfo into a reused buffer, parsed in place.
 */
import { execFile } from 'node:child_process'
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs'
import type { MemoryFloor } from '../core/plan.js'
import { errorMessage } from '../core/errors.js'
import type { MemInfo, MemoryGuardOptions } from './types.js'

const buffer = Buffer.alloc(8192)
const MEM_TOTAL = Buffer.from('MemTotal:')
const MEM_AVAILABLE = Buffer.from('MemAvailable:')
const MEM_FREE = Buffer.from('MemFree:')

/** The kB figure after `key` in the first `length` bytes of the buffer, in bytes; NaN when absent. */
function field(length: number, key: Buffer): number {
  const at = buffer.indexOf(key)
  if (at < 0 || at >= length) return Number.NaN
  let i = at + key.length
  while (i < length && buffer[i] === 32) i++
  let kb = 0
  let digits = 0
  for (; i < length && buffer[i] >= 48 && buffer[i] <= 57; i++, digits++) kb = kb * 10 + (buffer[i] - 48)
  return digits ? kb * 1024 : Number.NaN
}

/** MemAvailable and MemTotal from /proc/meminfo (MemFree on kernels too old for MemAvailable). */
export function readMemInfoSync(path = '/proc/meminfo'): MemInfo {
  const fd = openSync(path, 'r')
  let length: number
  try {
    length = readSync(fd, buffer, 0, buffer.length, 0)
  } finally {
    closeSync(fd)
  }
  // Stale bytes past `length` from an earlier read must not match.
  buffer.fill(0, length)
  const available = field(length, MEM_AVAILABLE)
  return {
    availableBytes: Number.isNaN(available) ? field(length, MEM_FREE) : available,
    totalBytes: field(length, MEM_TOTAL),
  }
}

export const readMemInfo = async (): Promise<MemInfo> => readMemInfoSync()

/** The floor in bytes; a `percent` floor holds a fraction of total memory (`5%` → 0.05), as the config parses it. */
export function floorBytes(floor: MemoryFloor, totalBytes: number): number {
  return floor.kind === 'bytes' ? floor.value : totalBytes * floor.value
}

/** Sample MemAvailable every interval; call onTrip once when it falls below the floor. */
export function startMemoryGuard(options: MemoryGuardOptions): { stop(): void } {
  const read = options.read ?? readMemInfo
  let busy = false
  let stopped = false
  const tick = async () => {
    if (busy || stopped) return
    busy = true
    try {
      const info = await read()
      const floor = floorBytes(options.floor, info.totalBytes)
      if (!stopped && info.availableBytes < floor) {
        stop()
        options.onTrip(info, floor)
      }
    } catch {
      // An unreadable sample is skipped; the next one may succeed.
    } finally {
      busy = false
    }
  }
  const timer = setInterval(() => void tick(), options.intervalMs ?? 1000)
  timer.unref()
  const stop = () => {
    stopped = true
    clearInterval(timer)
  }
  void tick()
  return { stop }
}

export interface DropCachesDeps {
  uid?: number
  sync?: () => Promise<void>
  /** The kernel knob (tests point it at a scratch file). */
  dropFile?: string
}

const runSync = () =>
  new Promise<void>((resolve, reject) =>
    execFile('sync', [], { timeout: 120_000 }, (error) => (error ? reject(error) : resolve())),
  )

/** Sync and drop the page cache (root only); returns a warning text when it could not. Never throws. */
export async function dropCaches(deps: DropCachesDeps = {}): Promise<string | undefined> {
  const uid = deps.uid ?? process.getuid?.()
  if (uid !== 0)
    return `drop-caches: skipped, needs root (running as uid ${uid ?? 'unknown'}); the page cache may hold memory the engine needs`
  try {
    await (deps.sync ?? runSync)()
    writeFileSync(deps.dropFile ?? '/proc/sys/vm/drop_caches', '3')
    return undefined
  } catch (error) {
    return `drop-caches: failed: ${errorMessage(error)}`
  }
}
