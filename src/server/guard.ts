/**
 * The run's guard: every cleanup task of what the run starts is registered here before it starts,
 * handed to the caller (the action saves them for its post step) and to a watchdog: a small
 * detached process, in a session of its own, that holds a pipe from this process. When the pipe
 * closes without a final "done" — this process died, even by SIGKILL, and no `finally` or post
 * step may ever run — the watchdog runs the cleanup itself and exits.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Logger } from '../core/log.js'
import { errorMessage } from '../core/errors.js'
import { removeByLabel } from './container.js'
import type { CleanupTask } from './cleanup.js'

export interface RunGuard {
  /** Unique per run; the value of every container's run label. */
  readonly runId: string
  /** Called before the thing it undoes is started. */
  register(task: CleanupTask): void
  /**
   * Called once a teardown saw a process group gone: its id may be reused from then on, so neither the
   * watchdog nor the post step may signal it again.
   */
  forget(task: CleanupTask): void
  /** Normal end, after every target's teardown: removes what still carries the run's label and lets the watchdog go. */
  close(): Promise<void>
}

export interface GuardOptions {
  runId: string
  log: Logger
  /** Every registered task so far, after each registration (the action's saved state). */
  onChange?: (tasks: readonly CleanupTask[]) => void
  /** The watchdog script; default: the bundle's `watchdog/index.js` next to the running bundle. Null: none. */
  watchdogScript?: string | null
}

/** `dist/watchdog/index.js`, seen from the action (`dist/index.js`) or the CLI (`dist/cli/index.js`). */
export function bundledWatchdog(entry = process.argv[1] ?? ''): string | undefined {
  // The CLI may be started through a bin symlink: look next to the file it points to.
  const dir = dirname(existsSync(entry) ? realpathSync(entry) : entry)
  return [join(dir, 'watchdog', 'index.js'), join(dir, '..', 'watchdog', 'index.js')].find((path) => existsSync(path))
}

function spawnWatchdog(script: string, log: Logger): ChildProcess | undefined {
  try {
    const child = spawn(process.execPath, [script], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] })
    child.on('error', (error) => log.warn(`watchdog: ${errorMessage(error)}`))
    child.stdin!.on('error', () => undefined)
    // Neither the child nor its pipe keeps this process alive; the pipe closes when this process ends.
    child.unref()
    ;(child.stdin as unknown as { unref?: () => void }).unref?.()
    return child
  } catch (error) {
    log.warn(`watchdog could not start (${errorMessage(error)}); cleanup after a crash is left to the post step`)
    return undefined
  }
}

const same = (task: CleanupTask) => (t: CleanupTask) => JSON.stringify(t) === JSON.stringify(task)

export function createRunGuard(options: GuardOptions): RunGuard {
  const tasks: CleanupTask[] = []
  let watchdog: ChildProcess | undefined
  let started = false
  const send = (message: unknown) => watchdog?.stdin?.writable && watchdog.stdin.write(`${JSON.stringify(message)}\n`)
  return {
    runId: options.runId,
    register(task) {
      // A relaunch registers the same tasks again; each is kept once.
      if (tasks.some(same(task))) return
      tasks.push(task)
      options.onChange?.(tasks)
      if (!started) {
        started = true
        const script = options.watchdogScript === undefined ? bundledWatchdog() : options.watchdogScript
        if (script) watchdog = spawnWatchdog(script, options.log)
        else if (options.watchdogScript === undefined)
          options.log.debug('no watchdog script next to this bundle; cleanup after a crash is left to the post step')
      }
      send({ task })
    },
    forget(task) {
      const at = tasks.findIndex(same(task))
      if (at < 0) return
      tasks.splice(at, 1)
      options.onChange?.(tasks)
      send({ forget: task })
    },
    async close() {
      for (const task of tasks) {
        if (task.kind !== 'containers') continue
        const left = await removeByLabel(task.runtime, task.runId)
        if (left.length)
          options.log.warn(`removed ${left.length} container(s) of run ${task.runId} left after teardown`)
      }
      send({ done: true })
      watchdog?.stdin?.end()
    },
  }
}
