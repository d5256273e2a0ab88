/**
 * Process groups: a launch runs as the leader of its own group (pgid = pid), so one signal
 * to `-pgid` reaches every process the launch script started, grandchildren included.
 */
import { readdirSync } from 'node:fs'
import { readProcStat } from '../io/proc-stat.js'
import { checkGroup, hasProc, type GroupCheck, type GroupIdentity } from './group-identity.js'

/** SIGTERM → SIGKILL grace. Teardown stays well inside the runner's 7.5 s SIGINT → SIGTERM window. */
export const DEFAULT_GRACE_MS = 4500
/** How long to wait for the group to vanish after SIGKILL (a GPU process may take a moment to exit). */
export const KILL_WAIT_MS = 1000
const POLL_MS = 50

/** Our own process group: never a target of these signals. */
export function ownProcessGroup(): number | undefined {
  return readProcStat('self')?.pgrp
}

/** Pids of the group's members that are not zombies (a zombie is dead, merely not reaped yet). */
export function liveMembers(pgid: number): number[] {
  const pids: number[] = []
  if (!hasProc()) return pids
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue
    const stat = readProcStat(entry)
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') pids.push(Number(entry))
  }
  return pids
}

/**
 * True while a process of the group runs. Zombies do not count: where the container's
 * init does not reap orphans, a killed grandchild stays a zombie for good.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  return hasProc() ? liveMembers(pgid).length > 0 : true
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls until every group is gone or the time is up; returns the groups still alive. */
export async function waitGroupsGone(pgids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs
  let alive = pgids.filter(groupAlive)
  while (alive.length && Date.now() < deadline) {
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())))
    alive = alive.filter(groupAlive)
  }
  return alive
}

export type TerminateOutcome = 'gone' | 'terminated' | 'killed' | 'stuck'

/** SIGTERM the group, SIGKILL it after `graceMs`; says how it ended. */
export async function terminateGroup(pgid: number, graceMs = DEFAULT_GRACE_MS): Promise<TerminateOutcome> {
  if (!groupAlive(pgid)) return 'gone'
  signalGroup(pgid, 'SIGTERM')
  // A stopped (SIGSTOP'd) process only sees SIGTERM once continued.
  signalGroup(pgid, 'SIGCONT')
  if ((await waitGroupsGone([pgid], graceMs)).length === 0) return 'terminated'
  signalGroup(pgid, 'SIGKILL')
  return (await waitGroupsGone([pgid], KILL_WAIT_MS)).length === 0 ? 'killed' : 'stuck'
}

/**
 * Post-step and watchdog safety net: SIGTERM every saved group that is still ours and alive, SIGKILL those
 * left after `graceMs`. Returns the groups it had to kill. A group that is gone or no longer ours
 * (group-identity.ts) is never signalled: `passed` hears of it, and the caller forgets it. Ids that cannot
 * be a launched group (<= 1, our own group) are ignored.
 */
export async function killProcessGroups(
  groups: readonly GroupIdentity[],
  graceMs = DEFAULT_GRACE_MS,
  passed: (pgid: number, check: Exclude<GroupCheck, 'ours' | 'unchecked'>) => void = () => undefined,
): Promise<number[]> {
  const own = ownProcessGroup()
  const unique = new Map(groups.map((g) => [`${g.pgid}/${g.start}`, g]))
  const valid = [...unique.values()].filter(
    ({ pgid }) => Number.isInteger(pgid) && pgid > 1 && pgid !== own && pgid !== process.pid,
  )
  const ours = valid.filter((group) => {
    const check = checkGroup(group)
    if (check === 'ours' || check === 'unchecked') return true
    passed(group.pgid, check)
    return false
  })
  // Checked and signalled one synchronous step apart. From then on a group found at every 50 ms poll is still
  // ours, leader or not: its id is not reused while it exists (group-identity.ts), so a reuse would need it to
  // end and the pid counter to come round again between two polls. A poll that misses it drops it.
  const alive = [...new Set(ours.map((g) => g.pgid))].filter(groupAlive)
  for (const pgid of alive) {
    signalGroup(pgid, 'SIGTERM')
    signalGroup(pgid, 'SIGCONT')
  }
  const left = await waitGroupsGone(alive, graceMs)
  for (const pgid of left) signalGroup(pgid, 'SIGKILL')
  await waitGroupsGone(left, KILL_WAIT_MS)
  return alive
}
