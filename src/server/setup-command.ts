/**
 * A command that prepares a launch and must end by itself (`ab-setup`: build or install the base commit's engine in
 * its worktree): run under `bash -c` as the leader of its own process group, registered with the run's guard the
 * way an engine is (so the post step and the watchdog end it if this process dies), its output in a bounded log,
 * bounded in time. Whatever the group still holds when the command exits (a daemon it started) is ended with it.
 */
import { setTimeout as delay } from 'node:timers/promises'
import { errorMessage } from '../core/errors.js'
import { formatDuration } from '../core/format.js'
import { engineEnv } from './env.js'
import { groupTask, launchGroup } from './launch.js'
import { terminateGroup } from './process-group.js'
import type { RunGuard } from './guard.js'

/** In `ab-setup`'s environment: `base`, the arm it prepares. */
export const AB_ARM_VARIABLE = 'LLM_BENCH_GATE_ARM'
/** In `ab-setup`'s environment: the base commit's full id. */
export const AB_BASE_SHA_VARIABLE = 'LLM_BENCH_GATE_BASE_SHA'

export interface SetupCommand {
  /** What it is, for messages (`ab-setup of sim`). */
  name: string
  command: string
  cwd: string
  /** Added to the least-privilege environment (server/env.ts), as a launch's `env` is. */
  env: Record<string, string>
  passEnv: readonly string[]
  logPath: string
  timeoutMs: number
  guard?: RunGuard
  signal: AbortSignal
}

export type SetupOutcome = { ok: true; ms: number } | { ok: false; reason: string; ms: number }

/** Runs the command to its end, or ends it at its time limit or the run's cancellation; never throws. */
export async function runSetupCommand(s: SetupCommand): Promise<SetupOutcome> {
  const started = Date.now()
  const ms = () => Date.now() - started
  let group: Awaited<ReturnType<typeof launchGroup>>
  try {
    group = await launchGroup({
      command: s.command,
      env: engineEnv(process.env, s.passEnv, s.env).env,
      logPath: s.logPath,
      cwd: s.cwd,
    })
  } catch (error) {
    return { ok: false, reason: `${s.name} could not start: ${errorMessage(error)}`, ms: ms() }
  }
  const task = groupTask(group)
  s.guard?.register(task)
  let timer: NodeJS.Timeout | undefined
  const ended = await Promise.race([
    group.exit.then((info) => ({ info })),
    new Promise<{ late: true }>((resolve) => (timer = setTimeout(() => resolve({ late: true }), s.timeoutMs))),
    new Promise<{ cancelled: true }>((resolve) => {
      if (s.signal.aborted) resolve({ cancelled: true })
      s.signal.addEventListener('abort', () => resolve({ cancelled: true }), { once: true })
    }),
  ])
  clearTimeout(timer)
  await terminateGroup(group.pgid)
  s.guard?.forget(task)
  // The pipes close with the group's last writer; the log's last line is read after them.
  await Promise.race([group.drained, delay(1000)])
  group.log.close()
  const last = group.log.lastLine()
  const tail = last ? `; its last line: ${last.slice(0, 300)}` : ''
  if ('late' in ended)
    return { ok: false, reason: `${s.name} did not finish within ${formatDuration(s.timeoutMs)}${tail}`, ms: ms() }
  if ('cancelled' in ended) return { ok: false, reason: `${s.name} was cancelled`, ms: ms() }
  const { code, signal } = ended.info
  if (code === 0) return { ok: true, ms: ms() }
  return { ok: false, reason: `${s.name} failed (${signal ? `signal ${signal}` : `exit ${code}`})${tail}`, ms: ms() }
}
