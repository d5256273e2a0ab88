/**
 * `git`, bounded: no shell (an argument list), no prompt for credentials (`GIT_TERMINAL_PROMPT=0`, git(1)
 * ENVIRONMENT), messages in English (they end up in a report), a time limit past which its whole process
 * group is killed (a fetch runs `git-remote-*` and `upload-pack` children), and a cap on what its output
 * may hold. Never throws: a failure comes back with git's most telling error line.
 *
 * The time limit is this process's timer: when this process dies (a SIGKILLed step), nothing of it is left.
 * So git runs as the leader of its own process group, registered with the run's guard like an engine's, and
 * the watchdog or the post step kills what is left of it; a network command also gets git's own stall limit.
 */
import { spawn } from 'node:child_process'
import { errorMessage } from '../core/errors.js'
import { redactLine } from '../core/redact.js'
import type { RunGuard } from './guard.js'
import { startTimeOf } from './group-identity.js'
import { groupTask } from './launch.js'
import { signalGroup } from './process-group.js'

export const GIT_TIMEOUT_MS = 30_000

/** What one stream of git's output may hold; the rest is counted and dropped. */
export const GIT_OUTPUT_BYTES = 256 * 1024

/**
 * Put before a network command (`fetch`): an HTTP transfer slower than 1000 bytes/s for 30 s is aborted
 * (git-config(1) `http.lowSpeedLimit`, `http.lowSpeedTime`; curl's CURLOPT_LOW_SPEED_LIMIT/TIME), so a remote
 * that accepts the connection and never answers ends the command by itself, even once the process that started it is gone.
 */
export const STALLED_TRANSFER_ENDS = ['-c', 'http.lowSpeedLimit=1000', '-c', 'http.lowSpeedTime=30'] as const

/** What a reason quotes of git's message. */
const REASON_CHARS = 200

export interface GitOptions {
  /** The repository (`git -C`). */
  cwd: string
  timeoutMs?: number
  signal?: AbortSignal
  /** The run's guard: git's process group is registered while it runs, so the watchdog and the post step kill it. */
  guard?: Pick<RunGuard, 'register' | 'forget'>
}

export type GitResult = { ok: true; stdout: string } | { ok: false; reason: string }

/**
 * One line of git's stderr for a report: the first `fatal:`/`error:` line (git prints the specific cause first
 * and generic advice after it: "does not appear to be a git repository", then "Could not read from remote
 * repository"), else the last line; control characters and URL credentials removed, redacted, bounded.
 */
export function gitReason(stderr: string): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean)
  const line = lines.find((l) => /^(fatal|error):/i.test(l)) ?? lines.at(-1) ?? 'no message'
  return redactLine(line.replace(/^(fatal|error):\s*/i, ''), REASON_CHARS)
}

/** Keeps the first GIT_OUTPUT_BYTES of a stream. */
function collector() {
  const parts: Buffer[] = []
  let kept = 0
  return {
    add(chunk: Buffer) {
      const room = GIT_OUTPUT_BYTES - kept
      if (room <= 0) return
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk
      parts.push(part)
      kept += part.length
    },
    text: () => Buffer.concat(parts).toString('utf8'),
  }
}

/** Runs `git -C <cwd> <args>`. */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS
  if (options.signal?.aborted) return Promise.resolve({ ok: false, reason: 'cancelled' })
  return new Promise((resolve) => {
    const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }
    const child = spawn('git', ['-C', options.cwd, ...args], {
      detached: true,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    // The leader's start time is read in the tick it was spawned, before it can be reaped (group-identity.ts).
    const task = child.pid === undefined ? undefined : groupTask({ pgid: child.pid, start: startTimeOf(child.pid) })
    if (task) options.guard?.register(task)
    const stdout = collector()
    const stderr = collector()
    child.stdout.on('data', stdout.add)
    child.stderr.on('data', stderr.add)
    let stopped: string | undefined
    const stop = (why: string) => {
      stopped ??= why
      if (child.pid) signalGroup(child.pid, 'SIGKILL')
    }
    const limit = timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`
    const timer = setTimeout(() => stop(`timed out after ${limit}`), timeoutMs)
    const onAbort = () => stop('cancelled')
    options.signal?.addEventListener('abort', onAbort, { once: true })
    const settle = (result: GitResult) => {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      // Settled on 'close': every process holding git's output is gone, so its group id may be reused.
      if (task) options.guard?.forget(task)
      resolve(result)
    }
    child.once('error', (error) => settle({ ok: false, reason: `git could not start: ${errorMessage(error)}` }))
    child.once('close', (code, signal) => {
      if (stopped) return settle({ ok: false, reason: stopped })
      if (code === 0) return settle({ ok: true, stdout: stdout.text() })
      const text = stderr.text()
      settle({ ok: false, reason: text.trim() ? gitReason(text) : `git exited with ${signal ?? `code ${code}`}` })
    })
  })
}
