/**
 * The /proc parsers a round's host state is read with, on files recorded from a real box (fixtures/proc) and on
 * hand-made lines for what that box did not show (swap in use, a process naming itself with spaces and parentheses).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  parseCpuTimes,
  parseMemInfo,
  parseProcTimes,
  parseUptime,
  parseVmstat,
  readAllProcTimes,
} from '../../src/io/proc-host.js'
import { ROOT } from '../helpers/root.js'

const recorded = (name: string) => readFileSync(join(ROOT, 'fixtures/proc', name), 'utf8')

describe('/proc parsers on recorded files', () => {
  it('reads the uptime in seconds', () => {
    expect(parseUptime(recorded('uptime.txt'))).toBe(43896.07)
  })

  it('reads MemAvailable, MemTotal and swap from meminfo, in bytes', () => {
    expect(parseMemInfo(recorded('meminfo.txt'))).toEqual({
      totalBytes: 24683784 * 1024,
      availableBytes: 23394740 * 1024,
      swapTotalBytes: 0,
      swapFreeBytes: 0,
    })
  })

  it('reads the swap-in and swap-out counters from vmstat', () => {
    expect(parseVmstat(recorded('vmstat.txt'))).toEqual({ swapIn: 0, swapOut: 0 })
  })

  it('sums the cpu line: idle and iowait are idle, guest time is not counted twice', () => {
    // cpu  3671261 2351 435923 4574373 12309 0 20450 24292 0 0
    const total = 3671261 + 2351 + 435923 + 4574373 + 12309 + 0 + 20450 + 24292
    expect(parseCpuTimes(recorded('stat.txt'))).toEqual({ total, busy: total - 4574373 - 12309, cores: 2 })
  })

  it("reads a process's comm, parent, group, CPU ticks and start time", () => {
    expect(parseProcTimes(recorded('pid-stat.txt'))).toEqual({
      comm: 'cat',
      ppid: 8987,
      pgrp: 8987,
      ticks: 0,
      startTime: 4389608,
    })
  })
})

describe('/proc parsers on hand-made lines', () => {
  it('reads swap in use and counters that moved', () => {
    const meminfo = 'MemTotal:  1000 kB\nMemAvailable:  400 kB\nSwapTotal:  2048 kB\nSwapFree:  1024 kB\n'
    expect(parseMemInfo(meminfo)).toEqual({
      totalBytes: 1000 * 1024,
      availableBytes: 400 * 1024,
      swapTotalBytes: 2048 * 1024,
      swapFreeBytes: 1024 * 1024,
    })
    expect(parseVmstat('nr_free_pages 5\npswpin 1234\npswpout 56\npswpin_x 9\n')).toEqual({ swapIn: 1234, swapOut: 56 })
  })

  it('counts fields after the last parenthesis, so a name with spaces and parentheses cannot shift them', () => {
    const line = '4242 (evil ) 1 2 3 (x) S 77 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 99999 1 1\n'
    expect(parseProcTimes(line)).toEqual({
      comm: 'evil ) 1 2 3 (x',
      ppid: 77,
      pgrp: 4242,
      ticks: 300,
      startTime: 99999,
    })
  })

  it('refuses what is not a stat line, and files without the fields', () => {
    expect(parseProcTimes('4242 evil S 1 2')).toBeUndefined()
    expect(parseProcTimes('4242 (short) S 1 2 3')).toBeUndefined()
    expect(parseUptime('')).toBeUndefined()
    expect(parseCpuTimes('intr 1 2 3\n')).toBeUndefined()
    expect(parseVmstat('')).toEqual({})
  })

  it('reads this process among the live ones, bounded', () => {
    const all = readAllProcTimes(100_000)
    expect(all.get(process.pid)?.ppid).toBe(process.ppid)
    expect(readAllProcTimes(3).size).toBeLessThanOrEqual(3)
  })
})
