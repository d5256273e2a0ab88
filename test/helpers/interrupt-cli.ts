/**
 * Ctrl-C (or SIGTERM) on a running `llm-bench-gate run`: starts the CLI, sends the signal a while
 * after the target is ready (its requests are streaming by then) and reports what was left.
 */
import { spawn } from 'node:child_process'
import { groupAlive } from '../../src/server/process-group.js'
import { killGroupQuietly } from '../server/procs.js'
import { CLI } from './cli.js'

export interface InterruptedRun<T> {
  code: number | null
  output: string
  /** The engine's process group, from the CLI's `launched process group N` line. */
  pgid?: number
  /** Whether that group outlived the CLI. */
  groupLeft: boolean
  /** What `inspect` saw right after the CLI exited, before the group was cleaned up. */
  seen: T
}

export interface InterruptOptions<T> {
  cwd: string
  args: string[]
  signal: NodeJS.Signals
  /** How long after `ready at` the signal goes. */
  afterReadyMs: number
  /** The CLI is SIGKILLed after this long. */
  limitMs: number
  inspect?: () => T
}

/** Runs the CLI to its exit; whatever of the engine's group is left is killed after it has been looked at. */
export async function interruptCliRun<T = undefined>(o: InterruptOptions<T>): Promise<InterruptedRun<T>> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? o.cwd }
  const child = spawn(process.execPath, [CLI, ...o.args], { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  let pgid: number | undefined
  let signalled = false
  const onData = (d: Buffer) => {
    output += d.toString()
    pgid ??= Number(/launched process group (\d+)/.exec(output)?.[1]) || undefined
    if (!signalled && /ready at/.test(output)) {
      signalled = true
      setTimeout(() => child.kill(o.signal), o.afterReadyMs)
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const killer = setTimeout(() => child.kill('SIGKILL'), o.limitMs)
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)))
  clearTimeout(killer)
  const seen = o.inspect?.() as T
  const groupLeft = pgid !== undefined && groupAlive(pgid)
  if (pgid) killGroupQuietly(pgid)
  return { code, output, pgid, groupLeft, seen }
}
