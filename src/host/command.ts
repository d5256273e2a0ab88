/** Host commands with a time limit and an output limit: a hung or chatty tool cannot stall or flood the run. */
import { execFile } from 'node:child_process'

export type CommandResult = { ok: true; stdout: string } | { ok: false; missing: boolean; reason: string }

export interface CommandLimits {
  timeoutMs: number
  maxBytes: number
}

export const COMMAND_LIMITS: CommandLimits = { timeoutMs: 5000, maxBytes: 256 * 1024 }

/** Runs `file args` (no shell); `missing` when the program is not on PATH. Never throws. */
export function runCommand(
  file: string,
  args: readonly string[],
  limits: CommandLimits = COMMAND_LIMITS,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { timeout: limits.timeoutMs, maxBuffer: limits.maxBytes, killSignal: 'SIGKILL', encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) return resolve({ ok: true, stdout })
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT') return resolve({ ok: false, missing: true, reason: `${file} not found` })
        if (code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return resolve({ ok: false, missing: false, reason: `${file} failed: output over ${limits.maxBytes} bytes` })
        const why = error.killed
          ? `timed out after ${limits.timeoutMs} ms`
          : String(stdout || stderr || error.message)
              .trim()
              .split('\n')[0]
              .slice(0, 200)
        resolve({ ok: false, missing: false, reason: `${file} failed: ${why}` })
      },
    )
  })
}
