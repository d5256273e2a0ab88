/**
 * Whether a saved process group id still names the group this run launched. A pid is reused once
 * its process is gone; the leader's pid together with its start time (field 22 of
 * /proc/<pid>/stat, clock ticks after boot) is not, so the guard records both when it spawns the
 * group, and the watchdog and the post step check them before they signal `-pgid`.
 *
 * The rule, for a group whose leader is the `bash` we spawned detached (setsid(2): pgid = sid = its
 * pid; a session leader can neither join another group nor start one, setpgid(2) and setsid(2) EPERM):
 *
 * - `/proc/<pgid>` holds a process with the recorded start time (running, or a zombie not yet
 *   reaped): our leader, so `-pgid` is our group. (Start times count clock ticks; a later holder
 *   of the pid starts a whole round of the pid counter later, never within the same tick.)
 * - It holds a process with another start time: the pid was reused, so our group has ended. No
 *   pid is handed out that equals the id of a group still alive ("the child process ID also shall
 *   not match any active process group ID", POSIX fork(),
 *   https://pubs.opengroup.org/onlinepubs/9699919799/functions/fork.html; on Linux every member
 *   holds the group's `struct pid`, and its number is freed only with the last, kernel/pid.c).
 *   `-pgid` now reaches that process's group, if any: never signalled.
 * - No process holds the pid, yet `kill(-pgid, 0)` finds the group: members outlived the leader.
 *   They are our orphans, or, after our group ended, the pid went to a process that made a group
 *   of it (setsid(2) and setpgid(2) name a new group after its creator) and exited before its
 *   members. /proc cannot tell the two apart (a member's start time only says it began after our
 *   leader, true of both), so it is not signalled either. Such members are the run's own
 *   teardown's to kill: it follows the leader's exit at once.
 * - `kill(-pgid, 0)` says ESRCH: gone.
 *
 * Without /proc (macOS) nothing can be checked: the group is signalled while `kill(-pgid, 0)` finds
 * it, as before, since never signalling would leave every engine of a dead main process running.
 * The groups left by then are only those whose teardown never saw them gone (it forgets the
 * others): ones the main process left running when it died or ended a moment ago.
 */
import { readProcStat } from '../io/proc-stat.js'

/** A launched group as the guard records it: its id and its leader's start time (absent without /proc). */
export interface GroupIdentity {
  pgid: number
  start?: number
}

/**
 * What a check found. `ours`: signal it; `unchecked`: no /proc, signal it while it exists; the others
 * are never signalled, and a pass that finds them forgets them.
 */
export type GroupCheck = 'ours' | 'unchecked' | 'gone' | 'reused' | 'leaderless' | 'unrecorded'

export const CHECK_TEXT: Record<Exclude<GroupCheck, 'ours' | 'unchecked'>, string> = {
  gone: 'is gone',
  reused: "is not ours: another process holds its leader's pid (the id was reused)",
  leaderless: 'outlived its leader; not signalled, since /proc cannot tell our processes from a reused id',
  unrecorded: 'has no recorded leader start time; not signalled',
}

let procAvailable: boolean | undefined

/** True where /proc/self/stat can be read (Linux); cached. */
export function hasProc(): boolean {
  procAvailable ??= readProcStat('self') !== undefined
  return procAvailable
}

/** The process's start time, clock ticks after boot; undefined where it or /proc is not there. */
export function startTimeOf(pid: number): number | undefined {
  return readProcStat(pid)?.startTime
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The rule above. */
export function checkGroup(group: GroupIdentity): GroupCheck {
  if (!hasProc()) return groupExists(group.pgid) ? 'unchecked' : 'gone'
  if (group.start === undefined) return groupExists(group.pgid) ? 'unrecorded' : 'gone'
  const leader = readProcStat(group.pgid)
  if (leader && leader.startTime !== group.start) return 'reused'
  if (leader && leader.pgrp === group.pgid) return 'ours'
  return groupExists(group.pgid) ? 'leaderless' : 'gone'
}
