/**
 * Bringing a target up: launch it in its own process group (or attach to a `url:` target),
 * wait until its health endpoint says ready and run the smoke request (bring-up.ts), and hand back a handle
 * whose `stop()` tears the whole group down. Any failure on the way kills the group first
 * and then throws a StartError carrying the log tail.
 */
import { join } from 'node:path'
import { fillPort, fillRuntime } from '../config/index.js'
import { describeModelFile, missingModelFiles } from '../config/model-files.js'
import { StartError, errorMessage } from '../core/errors.js'
import { formatDuration } from '../core/format.js'
import { RUN_ID_VARIABLE, engineEnv, withheldHint } from './env.js'
import { groupTask, launchGroup, type LaunchedGroup } from './launch.js'
import { DEFAULT_GRACE_MS, liveMembers, terminateGroup } from './process-group.js'
import { hostPort, pickFreePort, portAnswers, waitPortFree } from './ports.js'
import { exitSignal, race } from './readiness.js'
import { imagePresent, makeRunId, pullImage } from './container.js'
import { createRunGuard, type RunGuard } from './guard.js'
import { prepareOutside, type Outside } from './outside.js'
import type { ExitInfo, RunningTarget, StartOptions, StartupTimes } from './types.js'
import { trimSlash } from '../core/url.js'
import { bringUp, isFailure, type Failure } from './bring-up.js'
import { cut, tellingLine } from './log-lines.js'

const PORT_FREE_WAIT_MS = 700
/**
 * How long a stop waits for the group's output to end (the child's 'close': every writer of its pipes gone and the
 * last bytes read). Once the group is gone that comes as soon as the event loop reads what is buffered, so the wait
 * costs nothing on a clean exit; only a process that left the group (a daemon that called setsid) and kept the pipe
 * can hold it, and then the log is cut here. Under load the last lines of an engine that exited on its own came
 * later than 300 ms (llama-server's "exiting due to model loading error"), so a failure's log lost its last words.
 */
const DRAIN_WAIT_MS = 2_000
/** A group that survived SIGKILL still writes: the log is cut at once. */
const STUCK_DRAIN_WAIT_MS = 300

/** `<logDir>/<target id, path separators and odd characters replaced>.log` */
export function logPathFor(logDir: string, targetId: string): string {
  return join(logDir, `${targetId.replace(/[^A-Za-z0-9._-]/g, '_')}.log`)
}

/** Lines of the log looked through for the most telling one. */
const TELLING_LINES = 200

/**
 * The message with the log's most telling line (log-lines.ts: a missing file, an exception, an error) and its last
 * line, each cut; the last lines themselves travel with the error as its log tail.
 */
export function withLogLines(message: string, tail: string): string {
  const lines = tail.split('\n').filter((l) => l.trim() !== '')
  const last = lines.length ? cut(lines[lines.length - 1].trim()) : undefined
  const telling = tellingLine(lines)
  if (telling !== undefined && telling !== last) return `${message}; log says: ${telling}; last log line: ${last}`
  return last ? `${message}; last log line: ${last}` : message
}

async function attach(options: StartOptions): Promise<RunningTarget> {
  const { target } = options
  const baseUrl = trimSlash(target.port !== undefined ? fillPort(target.url, target.port) : target.url)
  const where = hostPort(baseUrl)
  if (!where?.port)
    throw new StartError(target.id, 'spawn', `url ${target.url} names no port and the target launches nothing`)
  const outcome = await bringUp(options, baseUrl, undefined)
  const failure = isFailure(outcome) ? outcome : undefined
  if (failure) throw new StartError(target.id, failure.kind, `${baseUrl}: ${failure.message}`, failure.exitCode ?? null)
  options.log.info(`${target.id}: attached to ${baseUrl} (external: nothing launched, nothing will be stopped)`)
  return {
    baseUrl,
    port: where.port,
    exited: new Promise<ExitInfo>(() => undefined),
    logTail: () => '',
    stop: async () => undefined,
  }
}

let fallbackGuard: RunGuard | undefined

/** Without a guard of the caller's (a test calling startTarget), one per process: a run id, no watchdog. */
function guardOf(options: StartOptions): RunGuard {
  return (
    options.guard ?? (fallbackGuard ??= createRunGuard({ runId: makeRunId(), log: options.log, watchdogScript: null }))
  )
}

/** The launch (and what it has outside its group), registered with the guard before anything starts. */
async function prepare(
  options: StartOptions,
  command: string | undefined,
  at: { port: number; logPath: string; env: Record<string, string> },
): Promise<Outside> {
  try {
    return await prepareOutside(options.target, command, { ...at, guard: guardOf(options) })
  } catch (error) {
    throw new StartError(options.target.id, 'spawn', `cannot prepare the launch: ${errorMessage(error)}`)
  }
}

/**
 * A container's image, pulled before the spawn when the runtime lacks it, so startup never holds a pull: the pull's
 * milliseconds, or undefined when the image was present (or the target runs none). The pull gets the target's
 * `ready-timeout` of its own. Nothing runs yet, so a failure throws with nothing to tear down.
 */
async function pullMissing(options: StartOptions, image: Outside['image']): Promise<number | undefined> {
  if (!image) return undefined
  const { target, log, signal } = options
  const timeoutMs = target.settings.readyTimeoutMs
  try {
    if (await imagePresent(image.runtime, image.name, signal)) return undefined
    log.info(
      `${target.id}: image ${image.name} is not present for ${image.runtime}; pulling it (up to ${formatDuration(timeoutMs)}, timed apart from startup)`,
    )
    const since = performance.now()
    await pullImage(image.runtime, image.name, timeoutMs, signal)
    const ms = performance.now() - since
    log.info(`${target.id}: pulled image ${image.name} in ${formatDuration(ms)}`)
    return ms
  } catch (error) {
    throw new StartError(target.id, signal?.aborted ? 'aborted' : 'spawn', errorMessage(error))
  }
}

/** A model file the launch names that is not here fails it before anything starts, not after `ready-timeout`. */
function refuseMissingModel(target: StartOptions['target']): void {
  const missing = missingModelFiles(target)
  if (!missing.length) return
  const named = missing.map((f) => `${f.field}: model file ${describeModelFile(f)} does not exist on this machine`)
  throw new StartError(target.id, 'spawn', `${named.join('; ')}; nothing was launched`)
}

async function launch(options: StartOptions, command: string | undefined): Promise<RunningTarget> {
  const { target, log } = options
  refuseMissingModel(target)
  const port = target.port ?? hostPort(target.url)?.port ?? (await pickFreePort())
  const baseUrl = trimSlash(fillPort(target.url, port))
  const host = hostPort(baseUrl)?.host ?? '127.0.0.1'
  if (await portAnswers(host, port)) {
    throw new StartError(
      target.id,
      'spawn',
      `port ${port} is already in use on ${host} (a server left from an earlier run?); nothing was launched`,
    )
  }
  const logPath = logPathFor(options.logDir, target.id)
  const runId = guardOf(options).runId
  const targetEnv = Object.fromEntries(Object.entries(target.env).map(([k, v]) => [k, fillRuntime(v, { run: runId })]))
  const extra = { ...targetEnv, PORT: String(port), [RUN_ID_VARIABLE]: runId }
  const outside = await prepare(options, command, { port, logPath, env: extra })
  if (outside.runtimeNote) log.info(`${target.id}: ${outside.runtimeNote}`)
  const pullMs = await pullMissing(options, outside.image)
  const filled = fillRuntime(outside.command, { port, run: runId })
  const { env, withheld } = engineEnv(process.env, target.settings.passEnv, extra)
  let group: LaunchedGroup
  // Startup counts from the spawn: the guard's registration, runtime detection and image pull before it are not the engine's.
  const spawned = performance.now()
  try {
    group = await launchGroup({ command: filled, env, logPath, cwd: target.workdir })
  } catch (error) {
    throw new StartError(target.id, 'spawn', `cannot start \`bash -c\`: ${errorMessage(error)}`)
  }
  guardOf(options).register(groupTask(group))
  options.onSpawn?.(group.pgid, group.start)
  log.info(`${target.id}: launched process group ${group.pgid} on port ${port} (log: ${logPath}): ${filled}`)
  const exit = outside.exit(group.exit)
  group = { ...group, exit, exitSignal: exitSignal(exit) }
  const running = groupHandle(options, group, outside, { baseUrl, host, port, launch: filled, logPath })

  let outcome: Failure | StartupTimes
  try {
    outcome = await bringUp(options, baseUrl, group, spawned)
  } catch (error) {
    // A throwing adapter or smoke hook must not leave the group running.
    await running.stop()
    throw error
  }
  if (!isFailure(outcome)) {
    const { readyMs, totalMs } = outcome
    const pulled = pullMs === undefined ? '' : `; image pull ${formatDuration(pullMs)} apart`
    log.info(
      `${target.id}: ready at ${baseUrl}; startup ${formatDuration(totalMs)} (health ready after ${formatDuration(readyMs)}, smoke request ${formatDuration(totalMs - readyMs)}${pulled})`,
    )
    return { ...running, startup: { ...outcome, ...(pullMs !== undefined && { pullMs }) } }
  }
  const failure = outcome
  await running.stop()
  const message = failureMessage(failure, group, withheld)
  throw new StartError(target.id, failure.kind, message, failure.exitCode ?? null, group.log.tail(), filled)
}

/** Why the launch failed, with the log's telling line (a listening-elsewhere failure names its own) and any withheld variables. */
function failureMessage(failure: Failure, group: LaunchedGroup, withheld: readonly string[]): string {
  const quoted =
    failure.kind === 'elsewhere' ? failure.message : withLogLines(failure.message, group.log.tail(TELLING_LINES))
  return quoted + (failure.kind === 'aborted' ? '' : withheldHint(withheld))
}

/**
 * The handle of a launched group: its exit (unless we stopped it ourselves), its log tail, and an
 * idempotent `stop()` that terminates the group, waits for its output and checks the port is free.
 */
function groupHandle(
  options: StartOptions,
  group: LaunchedGroup,
  outside: Outside,
  where: { baseUrl: string; host: string; port: number; launch: string; logPath: string },
): RunningTarget {
  const { target, log } = options
  const { host, port } = where
  const graceMs = options.stopGraceMs ?? DEFAULT_GRACE_MS
  let stopRequested = false
  let stopping: Promise<void> | undefined
  const teardown = async () => {
    stopRequested = true
    const outcome = await terminateGroup(group.pgid, graceMs)
    // Seen gone, its id is free for reuse: no later pass may signal it.
    if (outcome !== 'stuck') guardOf(options).forget(groupTask(group))
    if (outcome === 'killed')
      log.warn(`${target.id}: did not exit within ${formatDuration(graceMs)} of SIGTERM; killed with SIGKILL`)
    if (outcome === 'stuck')
      log.warn(`${target.id}: processes ${liveMembers(group.pgid).join(', ')} of group ${group.pgid} survived SIGKILL`)
    for (const problem of await outside.undo((text) => group.log.write(text), graceMs))
      log.warn(`${target.id}: ${problem}`)
    await race(group.drained, outcome === 'stuck' ? STUCK_DRAIN_WAIT_MS : DRAIN_WAIT_MS)
    if (outcome !== 'stuck' && !(await waitPortFree(host, port, PORT_FREE_WAIT_MS))) {
      log.warn(
        `${target.id}: port ${port} still answers after teardown; something outside the process group (a container?) holds it`,
      )
    }
    group.log.close()
  }
  return {
    baseUrl: where.baseUrl,
    port,
    launch: where.launch,
    pgid: group.pgid,
    logPath: where.logPath,
    exited: new Promise((resolve) => void group.exit.then((info) => !stopRequested && resolve(info))),
    logTail: (lines = 40) => group.log.tail(lines),
    stop: () => (stopping ??= teardown()),
    ...(outside.identity ? { identity: outside.identity } : {}),
    ...(outside.enginePid ? { enginePid: outside.enginePid } : {}),
  }
}

/** Launch (or attach to a `url:` target), wait until ready, run the smoke request. Throws StartError. */
export async function startTarget(options: StartOptions): Promise<RunningTarget> {
  const { target } = options
  if (options.signal?.aborted) throw new StartError(target.id, 'aborted', 'cancelled before launch')
  return (target.launch || target.container) && !target.external ? launch(options, target.launch) : attach(options)
}
