/**
 * `git`, bounded: no shell (an argument list), no prompt for credentials (`GIT_TERMINAL_PROMPT=0`, git(1)
 * ENVIRONMENT), messages in English (they end up in a report), a time limit past which its whole process
 * group is killed (a fetch runs `git-remote-*` and `upload-pack` children), and a cap on what its output
 * may hold. Never throws: a failure comes back with git's most telling error line.
 */
import { spawn } from 'node:child_process'
import { errorMessage } from '../core/errors.js'
import { redactLine } from '../core/redact.js'
import { signalGroup } from './process-group.js'

export const GIT_TIMEOUT_MS = 30_000

/** What one stream of git's output may hold; the rest is counted and dropped. */
export const GIT_OUTPUT_BYTES = 256 * 1024

/** What a reason quotes of git's message. */
const REASON_CHARS = 200

export interface GitOptions {
  /** The repository (`git -C`). */
  cwd: string
  timeoutMs?: number
  signal?: AbortSignal
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
