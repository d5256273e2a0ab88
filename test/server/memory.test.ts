import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { dropCaches, floorBytes, readMemInfoSync, startMemoryGuard } from '../../src/server/memory.js'
import type { MemInfo } from '../../src/server/types.js'

const GIB = 1024 ** 3
const dirs: string[] = []
afterEach(() => {
  vi.useRealTimers()
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }))
})
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memory-'))
  dirs.push(dir)
  return dir
}

describe('readMemInfoSync', () => {
  it('reads MemAvailable and MemTotal in bytes', () => {
    const path = join(tempDir(), 'meminfo')
    writeFileSync(
      path,
      'MemTotal:       127535360 kB\nMemFree:         1000000 kB\nMemAvailable:   98765432 kB\nBuffers:  12 kB\n',
    )
    expect(readMemInfoSync(path)).toEqual({ totalBytes: 127535360 * 1024, availableBytes: 98765432 * 1024 })
  })

  it('falls back to MemFree where MemAvailable is missing, and does not see bytes of an earlier, longer read', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'long'), 'MemTotal: 2000 kB\nMemFree: 1000 kB\nMemAvailable: 1500 kB\n')
    writeFileSync(join(dir, 'short'), 'MemTotal: 3000 kB\nMemFree: 700 kB\n')
    readMemInfoSync(join(dir, 'long'))
    expect(readMemInfoSync(join(dir, 'short'))).toEqual({ totalBytes: 3000 * 1024, availableBytes: 700 * 1024 })
  })

  it('reads this machine’s /proc/meminfo', () => {
    const info = readMemInfoSync()
    expect(info.totalBytes).toBeGreaterThan(0)
    expect(info.availableBytes).toBeGreaterThan(0)
    expect(info.availableBytes).toBeLessThanOrEqual(info.totalBytes)
  })
})

describe('floorBytes', () => {
  it.each([
    [{ kind: 'bytes', value: 4 * GIB }, 128 * GIB, 4 * GIB],
    [{ kind: 'percent', value: 0.05 }, 100 * GIB, 5 * GIB],
  ] as const)('%o of %d total is %d bytes', (floor, total, expected) => {
    expect(floorBytes(floor, total)).toBe(expected)
  })
})

describe('startMemoryGuard', () => {
  const reader = (samples: MemInfo[]) => {
    let i = 0
    return vi.fn(async () => samples[Math.min(i++, samples.length - 1)])
  }
  const mem = (availableGiB: number, totalGiB = 128): MemInfo => ({
    availableBytes: availableGiB * GIB,
    totalBytes: totalGiB * GIB,
  })

  it('trips once, with the sample and the floor, when available memory falls below the floor', async () => {
    vi.useFakeTimers()
    const read = reader([mem(40), mem(10), mem(3.5), mem(1), mem(0.5)])
    const onTrip = vi.fn()
    const guard = startMemoryGuard({ floor: { kind: 'bytes', value: 4 * GIB }, read, intervalMs: 1000, onTrip })
    await vi.advanceTimersByTimeAsync(0)
    expect(onTrip).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1000)
    expect(onTrip).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1000)
    expect(onTrip).toHaveBeenCalledTimes(1)
    expect(onTrip).toHaveBeenCalledWith(mem(3.5), 4 * GIB)
    await vi.advanceTimersByTimeAsync(5000)
    expect(onTrip).toHaveBeenCalledTimes(1)
    expect(read).toHaveBeenCalledTimes(3)
    guard.stop()
  })

  it('a percent floor is a share of total memory', async () => {
    vi.useFakeTimers()
    const onTrip = vi.fn()
    // 10% of 128 GiB = 12.8 GiB
    const guard = startMemoryGuard({ floor: { kind: 'percent', value: 0.1 }, read: reader([mem(12.7, 128)]), onTrip })
    await vi.advanceTimersByTimeAsync(0)
    expect(onTrip).toHaveBeenCalledWith(mem(12.7, 128), 128 * GIB * 0.1)
    guard.stop()
    const calm = vi.fn()
    const guard2 = startMemoryGuard({
      floor: { kind: 'percent', value: 0.1 },
      read: reader([mem(12.9, 128)]),
      onTrip: calm,
    })
    await vi.advanceTimersByTimeAsync(5000)
    expect(calm).not.toHaveBeenCalled()
    guard2.stop()
  })

  it('never trips above the floor, skips failed samples, and stops sampling on stop()', async () => {
    vi.useFakeTimers()
    let calls = 0
    const read = vi.fn(async () => {
      calls++
      if (calls === 2) throw new Error('unreadable')
      return mem(4.01)
    })
    const onTrip = vi.fn()
    const guard = startMemoryGuard({ floor: { kind: 'bytes', value: 4 * GIB }, read, intervalMs: 500, onTrip })
    await vi.advanceTimersByTimeAsync(2000)
    expect(read).toHaveBeenCalledTimes(5)
    guard.stop()
    await vi.advanceTimersByTimeAsync(2000)
    expect(read).toHaveBeenCalledTimes(5)
    expect(onTrip).not.toHaveBeenCalled()
  })
})

describe('dropCaches', () => {
  it('is skipped with a warning when not root', async () => {
    const sync = vi.fn(async () => undefined)
    const warning = await dropCaches({ uid: 1000, sync, dropFile: join(tempDir(), 'never') })
    expect(warning).toMatch(/needs root.*uid 1000/)
    expect(sync).not.toHaveBeenCalled()
  })

  it('as root: syncs, then writes 3 to the knob', async () => {
    const knob = join(tempDir(), 'drop_caches')
    const order: string[] = []
    const warning = await dropCaches({ uid: 0, sync: async () => void order.push('sync'), dropFile: knob })
    expect(warning).toBeUndefined()
    expect(order).toEqual(['sync'])
    expect(readFileSync(knob, 'utf8')).toBe('3')
  })

  it('turns a failure into a warning instead of throwing', async () => {
    const warning = await dropCaches({
      uid: 0,
      sync: async () => undefined,
      dropFile: join(tempDir(), 'missing-dir', 'knob'),
    })
    expect(warning).toMatch(/^drop-caches: failed: ENOENT/)
  })
})
