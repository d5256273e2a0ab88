/**
 * Runs a launch command under `bash -c` as the leader of a new process group, with its
 * output going to a bounded log file. Output goes through us (not straight to a file
 * descriptor) so the file stays bounded and the last lines are at hand for errors.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { ExitInfo } from './types.js'
import { BoundedLog, type BoundedLogOptions } from './log-file.js'
import { exitSignal } from './readiness.js'
import { startTimeOf } from './group-identity.js'
import type { GroupTask } from './cleanup.js'

export interface LaunchSpec {
  command: string
  env: Record<string, string>
  logPath: string
  logOptions?: BoundedLogOptions
  cwd?: string
}

export interface LaunchedGroup {
  pgid: number
  /** The leader's start time (clock ticks after boot; undefined without /proc): with `pgid`, what names the group later. */
  start?: number
  child: ChildProcess
  log: BoundedLog
  /** Resolves when `bash` exits (the group may outlive it). */
  exit: Promise<ExitInfo>
  /** The same exit as a signal (reason: ExitInfo), for races that come and go. */
  exitSignal: AbortSignal
  /** The exit, once it happened. */
  exitInfo(): ExitInfo | undefined
  /** Resolves when stdout and stderr have closed (every writer in the group is gone). */
  drained: Promise<void>
}

function stamp(): string {
  return new Date().toISOString()
}

/** Spawns the command; throws the spawn error (no bash, bad cwd) synchronously or on the first tick. */
export async function launchGroup(spec: LaunchSpec): Promise<LaunchedGroup> {
  const log = new BoundedLog(spec.logPath, spec.logOptions)
  log.note(`[llm-bench-gate ${stamp()}] $ ${spec.command}\n`)
  let child: ChildProcess
  try {
    child = spawn('bash', ['-c', spec.command], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The whole environment, as the caller built it (least privilege: server/env.ts); nothing is inherited.
      env: spec.env,
      cwd: spec.cwd,
    })
  } catch (error) {
    log.close()
    throw error
  }
  // Read before this tick ends: the child is reaped (and its pid freed) only from the event loop, so the
  // pid still names it here, running or a zombie.
  const start = child.pid === undefined ? undefined : startTimeOf(child.pid)
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve)
    child.once('error', reject)
  })
  try {
    await spawned
  } catch (error) {
    log.close()
    throw error
  }
  child.stdout!.on('data', (chunk: Buffer) => log.write(chunk))
  child.stderr!.on('data', (chunk: Buffer) => log.write(chunk))
  let info: ExitInfo | undefined
  const exit = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      info = { code, signal }
      log.note(`[llm-bench-gate ${stamp()}] launch process exited (${signal ? `signal ${signal}` : `code ${code}`})\n`)
      resolve(info)
    })
  })
  const drained = new Promise<void>((resolve) => child.once('close', () => resolve()))
  return { pgid: child.pid!, start, child, log, exit, exitSignal: exitSignal(exit), exitInfo: () => info, drained }
}

/** The group's cleanup task: what the guard records, and forgets once a teardown saw the group gone. */
export function groupTask(group: Pick<LaunchedGroup, 'pgid' | 'start'>): GroupTask {
  return { kind: 'group', pgid: group.pgid, start: group.start }
}
