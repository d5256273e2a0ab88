/** Runs the bundled CLI (`node dist/cli/index.js`) as a user would, in a working directory of the test's choosing. */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './root.js'

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

/**
 * `npm run demo`'s CLI arguments as package.json says them (after `node dist/cli/index.js`, before any `&&`), with
 * `--out` set to `out`: the tests run the demo the README tells people to run.
 */
export function demoArgs(out: string): string[] {
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>
  const command = scripts.demo.split('&&')[0].trim().split(/\s+/)
  if (command[0] !== 'node' || command[1] !== 'dist/cli/index.js')
    throw new Error(`package.json's demo script does not start with node dist/cli/index.js: ${scripts.demo}`)
  const args = command.slice(2)
  const at = args.indexOf('--out')
  if (at < 0) throw new Error(`package.json's demo script names no --out: ${scripts.demo}`)
  args[at + 1] = out
  return args
}
