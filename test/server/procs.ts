/** Process inspection for teardown tests, via /proc (and ps as a cross-check). */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** True when the pid no longer runs. A zombie counts as gone: this sandbox's init does not reap orphans. */
export function isGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z'
  } catch {
    return true
  }
}

/**
 * Field 22 (`starttime`, clock ticks after boot) of /proc/<pid>/stat, counted after the last `)` (proc_pid_stat(5));
 * undefined once the process is reaped.
 */
export function startTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
  } catch {
    return undefined
  }
}

/** Non-zombie members of a process group according to `ps`. */
export function psGroup(pgid: number): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,pgid=,stat='], { encoding: 'utf8' })
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([pid, group, stat]) => pid && Number(group) === pgid && !stat.startsWith('Z'))
    .map(([pid]) => Number(pid))
}

/** SIGKILL a group, ignoring "no such process" (afterEach safety net). */
export function killGroupQuietly(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL')
  } catch {
    // already gone
  }
}
