/**
 * `/proc/<pid>/stat`, one line of space-separated fields (proc_pid_stat(5),
 * https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html). Field 2, `comm`, is the thread's
 * name in parentheses, and a process may name itself anything (prctl(PR_SET_NAME), up to 15
 * bytes), spaces and parentheses included: the fields are counted from after the last `)`.
 */
import { readFileSync } from 'node:fs'

export interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), T, X (dead), … */
  state: string
  /** Field 5, the process group id. */
  pgrp: number
  /** Field 22, `starttime`: when the process started, in clock ticks after boot. */
  startTime: number
}

const COUNT = /^\d+$/

/** The fields this project reads, or undefined for a line that is not a stat line. */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')')
  if (close < 0 || text[close + 1] !== ' ') return undefined
  // fields[0] is field 3.
  const fields = text
    .slice(close + 2)
    .trimEnd()
    .split(' ')
  const [state, , pgrp] = fields
  const startTime = fields[19]
  if (!/^[A-Za-z]$/.test(state ?? '') || !COUNT.test(pgrp ?? '') || !COUNT.test(startTime ?? '')) return undefined
  const stat = { state, pgrp: Number(pgrp), startTime: Number(startTime) }
  return Number.isSafeInteger(stat.pgrp) && Number.isSafeInteger(stat.startTime) ? stat : undefined
}

/** `/proc/<pid>/stat` read and parsed; undefined where the process or /proc is not there. */
export function readProcStat(pid: number | string): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return undefined
  }
}
