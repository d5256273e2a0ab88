/** Runs the bundled CLI (`node dist/cli/index.js`) as a user would, in a working directory of the test's choosing. */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from './action.js'

export const CLI = join(ROOT, 'dist/cli/index.js')

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

export async function runCli(args: string[], options: { cwd: string; timeoutMs?: number }): Promise<CliRun> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? options.cwd }
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000)
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)))
  clearTimeout(timer)
  return { code, stdout, stderr }
}
