/**
 * Process groups: a launch runs as the leader of its own group (pgid = pid), so one signal
 * to `-pgid` reaches every process the launch script started, grandchildren included.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** SIGTERM → SIGKILL grace. Teardown stays well inside the runner's 7.5 s SIGINT → SIGTERM window. */
export const DEFAULT_GRACE_MS = 4500
/** How long to wait for the group to vanish after SIGKILL (a GPU process may take a moment to exit). */
export const KILL_WAIT_MS = 1000
const POLL_MS = 50

/** `/proc/<pid>/stat` → state and process group; the comm field may contain spaces and parens. */
function statOf(pid: string): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0], pgrp: Number(fields[2]) }
  } catch {
    return undefined
  }
}

let procAvailable: boolean | undefined
function hasProc(): boolean {
  procAvailable ??= statOf('self') !== undefined
  return procAvailable
}

/** Our own process group: never a target of these signals. */
export function ownProcessGroup(): number | undefined {
  return statOf('self')?.pgrp
}

/** Pids of the group's members that are not zombies (a zombie is dead, merely not reaped yet). */
export function liveMembers(pgid: number): number[] {
  const pids: number[] = []
  if (!hasProc()) return pids
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue
    const stat = statOf(entry)
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
 * Post-step safety net: SIGTERM every saved group still alive, SIGKILL those left after
 * `graceMs`. Returns the groups that were still alive (the ones it had to kill).
 * Ids that cannot be a launched group (<= 1, our own group) are ignored.
 */
export async function killProcessGroups(pgids: number[], graceMs = DEFAULT_GRACE_MS): Promise<number[]> {
  const own = ownProcessGroup()
  const valid = [...new Set(pgids)].filter((p) => Number.isInteger(p) && p > 1 && p !== own && p !== process.pid)
  const alive = valid.filter(groupAlive)
  for (const pgid of alive) {
    signalGroup(pgid, 'SIGTERM')
    signalGroup(pgid, 'SIGCONT')
  }
  const left = await waitGroupsGone(alive, graceMs)
  for (const pgid of left) signalGroup(pgid, 'SIGKILL')
  await waitGroupsGone(left, KILL_WAIT_MS)
  return alive
}
