/**
 * What must be undone when a run ends, whoever ends it: the target's own teardown, the post step,
 * or the watchdog when the main process died. Tasks are plain data (they travel through the
 * runner's saved state and the watchdog's pipe) and every one is safe to run twice.
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, writeSync } from 'node:fs'
import { openNoFollow } from '../io/safe-fs.js'
import { errorMessage } from '../core/errors.js'
import { redact } from '../core/redact.js'
import { engineEnv } from './env.js'
import { removeByLabel, type Runtime } from './container.js'
import { killProcessGroups, signalGroup } from './process-group.js'
import { CHECK_TEXT, type GroupIdentity } from './group-identity.js'
import { removeWorktree, type WorktreeRef } from './worktree.js'

/** A `stop:` command is bounded: past this it is killed. */
export const STOP_TIMEOUT_MS = 60_000

/** What one `stop:` command's output may add to its target's log; the rest is counted and dropped. */
export const STOP_OUTPUT_BYTES = 1024 * 1024

export interface StopTask {
  kind: 'stop'
  target: string
  /** `{port}` filled. */
  command: string
  /** The target's `env` and `PORT`, added to the least-privilege environment. */
  env: Record<string, string>
  passEnv: string[]
  logPath: string
  /** The target's workdir (the base commit's worktree for an A/B's base arm), while it exists. */
  cwd?: string
}

/** A launched process group: signalled only while its leader is still the process we started (group-identity.ts). */
export type GroupTask = { kind: 'group' } & GroupIdentity

/** A temporary worktree of another commit (worktree.ts); removed only while its folder's name and marker say it is ours. */
export type WorktreeTask = { kind: 'worktree' } & WorktreeRef

export type CleanupTask = StopTask | { kind: 'containers'; runtime: Runtime; runId: string } | GroupTask | WorktreeTask

/** Where a stop command's output goes. */
export type Sink = (text: string) => void

/** Appends to a target's log, redacted, without following a symlink; a log that cannot be opened drops the text. */
export function appendToLog(path: string): Sink {
  return (text) => {
    try {
      const fd = openNoFollow(path, 'append')
      try {
        writeSync(fd, redact(text))
      } finally {
        closeSync(fd)
      }
    } catch {
      // The log is for reading later; cleanup goes on without it.
    }
  }
}

/**
 * Runs a `stop:` command under `bash -c` in its own group, output to `write` (its first STOP_OUTPUT_BYTES; the
 * rest is read and dropped, so a flooding command neither blocks nor fills the disk); killed after `timeoutMs`.
 * Returns a problem, if any.
 */
export function runStop(task: StopTask, write: Sink, timeoutMs = STOP_TIMEOUT_MS): Promise<string | undefined> {
  const { env } = engineEnv(process.env, task.passEnv, task.env)
  write(`[llm-bench-gate ${new Date().toISOString()}] stop: $ ${task.command}\n`)
  return new Promise((resolve) => {
    // Once the worktree is gone (the post step after the watchdog), the command runs where the run did.
    const cwd = task.cwd && existsSync(task.cwd) ? task.cwd : undefined
    const child = spawn('bash', ['-c', task.command], { detached: true, env, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let kept = 0
    let dropped = 0
    const output = (chunk: Buffer) => {
      const room = Math.max(0, STOP_OUTPUT_BYTES - kept)
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk
      kept += part.length
      dropped += chunk.length - part.length
      if (part.length) write(part.toString('utf8'))
    }
    child.stdout.on('data', output)
    child.stderr.on('data', output)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      signalGroup(child.pid!, 'SIGKILL')
    }, timeoutMs)
    child.once('error', (error) => {
      clearTimeout(timer)
      resolve(`stop command could not start: ${errorMessage(error)}`)
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      const how = timedOut
        ? `killed after ${Math.round(timeoutMs / 1000)} s`
        : signal
          ? `killed by ${signal}`
          : `code ${code}`
      const cut = dropped ? `; ${dropped} bytes of its output dropped past ${STOP_OUTPUT_BYTES}` : ''
      write(`[llm-bench-gate ${new Date().toISOString()}] stop command exited (${how})${cut}\n`)
      resolve(timedOut || code !== 0 ? `stop command ${how}` : undefined)
    })
  })
}

export interface CleanupReport {
  /** Containers of the run's label that were still there. */
  containers: string[]
  /** Process groups that were still alive. */
  groups: number[]
  /** Groups not signalled since they are gone or their id names another process now; a line each. */
  notOurs: string[]
  /** Groups not signalled though processes remain in them, since /proc cannot prove them ours; a line each. */
  leftAlone: string[]
  stops: number
  /** Worktree folders that were still there and are gone now. */
  worktrees: string[]
  problems: string[]
}

/** Removes each worktree task's folder once; a folder that is not ours is left, and said so. */
async function removeWorktrees(tasks: readonly CleanupTask[], report: CleanupReport): Promise<void> {
  const worktrees = new Map(tasks.flatMap((t) => (t.kind === 'worktree' ? [[t.path, t] as const] : [])))
  for (const task of worktrees.values()) {
    const outcome = await removeWorktree(task)
    if ('refused' in outcome) report.problems.push(`worktree left in place: ${outcome.refused}`)
    else if ('problem' in outcome) report.problems.push(`worktree: ${outcome.problem}`)
    else if (outcome.removed) report.worktrees.push(task.path)
  }
}

/**
 * Runs every task: groups killed, the run's containers removed by label, then the stop commands (each once),
 * then the worktrees, last since an engine or a stop command may run from one.
 */
export async function runCleanup(tasks: readonly CleanupTask[], graceMs: number): Promise<CleanupReport> {
  const report: CleanupReport = {
    containers: [],
    groups: [],
    notOurs: [],
    leftAlone: [],
    stops: 0,
    worktrees: [],
    problems: [],
  }
  const groups = tasks.flatMap((t) => (t.kind === 'group' ? [{ pgid: t.pgid, start: t.start }] : []))
  const passed = (pgid: number, check: keyof typeof CHECK_TEXT) =>
    (check === 'gone' || check === 'reused' ? report.notOurs : report.leftAlone).push(
      `process group ${pgid} ${CHECK_TEXT[check]}`,
    )
  const labels = new Map(
    tasks.flatMap((t) => (t.kind === 'containers' ? [[`${t.runtime} ${t.runId}`, t] as const] : [])),
  )
  // Groups and containers at once: a dead main process leaves both, and the container is what holds the memory.
  const [killed, ...removed] = await Promise.all([
    groups.length ? killProcessGroups(groups, graceMs, passed) : Promise.resolve([]),
    ...[...labels.values()].map((task) => removeByLabel(task.runtime, task.runId)),
  ])
  report.groups = killed
  report.containers = removed.flat()
  const stops = new Map(tasks.flatMap((t) => (t.kind === 'stop' ? [[`${t.target}\n${t.command}`, t] as const] : [])))
  for (const task of stops.values()) {
    const problem = await runStop(task, appendToLog(task.logPath))
    report.stops++
    if (problem) report.problems.push(`${task.target}: ${problem}`)
  }
  await removeWorktrees(tasks, report)
  return report
}
