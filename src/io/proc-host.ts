/**
 * The box-wide files of /proc a round's host state is read from (proc(5),
 * https://man7.org/linux/man-pages/man5/proc.5.html): `/proc/uptime`, `/proc/meminfo`, `/proc/vmstat`, `/proc/stat`
 * and each process's `/proc/<pid>/stat` for its CPU time. Parsers take the text, so recorded files test them;
 * readers return undefined where a file is missing or unreadable (not Linux, a process that just exited).
 */
import { readFileSync, readdirSync } from 'node:fs'

/** `/proc/uptime`: the box's uptime in seconds, the first of its two numbers. */
export function parseUptime(text: string): number | undefined {
  const first = /^\s*(\d+(?:\.\d+)?)\s/.exec(text)?.[1]
  return first === undefined ? undefined : Number(first)
}

export interface MemInfoFigures {
  availableBytes?: number
  totalBytes?: number
  swapTotalBytes?: number
  swapFreeBytes?: number
}

const MEMINFO_KEYS: Record<string, keyof MemInfoFigures> = {
  MemAvailable: 'availableBytes',
  MemTotal: 'totalBytes',
  SwapTotal: 'swapTotalBytes',
  SwapFree: 'swapFreeBytes',
}

/** `/proc/meminfo`'s lines `Name:   1234 kB` (kibibytes, whatever the unit's spelling says) for the keys read. */
export function parseMemInfo(text: string): MemInfoFigures {
  const figures: MemInfoFigures = {}
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s+(\d+)(?: kB)?\s*$/.exec(line)
    const key = m && MEMINFO_KEYS[m[1]]
    if (key) figures[key] = Number(m[2]) * 1024
  }
  return figures
}

/** `/proc/vmstat`'s swap counters: pages swapped in (`pswpin`) and out (`pswpout`) since boot. */
export function parseVmstat(text: string): { swapIn?: number; swapOut?: number } {
  const value = (name: string) => {
    const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text)
    return m ? Number(m[1]) : undefined
  }
  const swapIn = value('pswpin')
  const swapOut = value('pswpout')
  return { ...(swapIn !== undefined && { swapIn }), ...(swapOut !== undefined && { swapOut }) }
}

/** The CPUs' time since boot in clock ticks: all of it, the busy part, and how many CPUs the file lists. */
export interface CpuTimes {
  total: number
  busy: number
  cores: number
}

/**
 * `/proc/stat`'s `cpu` line: user nice system idle iowait irq softirq steal guest guest_nice, in clock ticks. Idle is
 * `idle` + `iowait`; `guest` and `guest_nice` are already counted in `user` and `nice`, so they are left out of the total.
 */
export function parseCpuTimes(text: string): CpuTimes | undefined {
  const line = /^cpu\s+([\d ]+)$/m.exec(text)?.[1]
  if (!line) return undefined
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).map(Number)
  if ([user, nice, system, idle].some((v) => v === undefined || !Number.isFinite(v))) return undefined
  const total = user + nice + system + idle + iowait + irq + softirq + steal
  const cores = (text.match(/^cpu\d+\s/gm) ?? []).length
  return { total, busy: total - idle - iowait, cores: Math.max(1, cores) }
}

/** What a process's `/proc/<pid>/stat` says of its CPU use and kin. */
export interface ProcTimes {
  /** Field 2 without its parentheses. */
  comm: string
  /** Field 4. */
  ppid: number
  /** Field 5. */
  pgrp: number
  /** Fields 14 and 15, `utime` + `stime`: CPU time in user and kernel mode, clock ticks. */
  ticks: number
  /** Field 22: when it started, clock ticks after boot. */
  startTime: number
}

/** Fields are counted from after the last `)`, since a process names itself anything (io/proc-stat.ts). */
export function parseProcTimes(text: string): ProcTimes | undefined {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open || text[close + 1] !== ' ') return undefined
  // fields[0] is field 3.
  const fields = text
    .slice(close + 2)
    .trimEnd()
    .split(' ')
  const pick = (field: number) => {
    const raw = fields[field - 3]
    return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined
  }
  const [ppid, pgrp, utime, stime, startTime] = [4, 5, 14, 15, 22].map(pick)
  if ([ppid, pgrp, utime, stime, startTime].some((v) => v === undefined || !Number.isSafeInteger(v))) return undefined
  return { comm: text.slice(open + 1, close), ppid: ppid!, pgrp: pgrp!, ticks: utime! + stime!, startTime: startTime! }
}

/** A /proc file's text, or undefined. */
export function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** The pids `/proc` lists, at most `limit` of them, in its order (ascending on Linux). */
export function listPids(limit: number): number[] {
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const pids: number[] = []
  for (const name of names) {
    if (pids.length >= limit) break
    if (/^\d+$/.test(name)) pids.push(Number(name))
  }
  return pids
}

/** Every listed process's times, by pid (bounded by `limit`); a process gone between listing and reading is left out. */
export function readAllProcTimes(limit: number): Map<number, ProcTimes> {
  const all = new Map<number, ProcTimes>()
  for (const pid of listPids(limit)) {
    const text = readProc(`/proc/${pid}/stat`)
    const times = text === undefined ? undefined : parseProcTimes(text)
    if (times) all.set(pid, times)
  }
  return all
}
