/**
 * Whether a started target comes up: its health endpoint polled until the engine is ready, then the smoke request,
 * each bounded by the target's `ready-timeout`. The outcome is why it failed, or how long each step took.
 */
import { httpPorts } from '../engines/http.js'
import { errorMessage, type StartError } from '../core/errors.js'
import { formatDuration } from '../core/format.js'
import type { LaunchedGroup } from './launch.js'
import { describeAnswer, race, waitReady } from './readiness.js'
import { elsewhereLine } from './log-lines.js'
import { hostPort } from './ports.js'
import type { ExitInfo, StartOptions, StartupTimes } from './types.js'

export type Failure = { kind: StartError['kind']; message: string; exitCode?: number | null }

const SMOKE_ATTEMPTS = 3
const SMOKE_MIN_MS = 10_000

function exitText(exit: ExitInfo): string {
  if (exit.signal) return `was killed by ${exit.signal}${exit.signal === 'SIGKILL' ? ' (out of memory?)' : ''}`
  return `exited with code ${exit.code}`
}

/** Waits for ready, then the smoke request; returns why it failed, or how long each took from `since` when up. */
export async function bringUp(
  options: StartOptions,
  baseUrl: string,
  group: LaunchedGroup | undefined,
  since = performance.now(),
): Promise<Failure | StartupTimes> {
  const started = Date.now()
  const notReady = await untilReady(options, baseUrl, group)
  if (notReady) return notReady
  const readyMs = performance.now() - since
  const failed = await smokeTest(options, baseUrl, group, started)
  return failed ?? { readyMs, totalMs: performance.now() - since }
}

export const isFailure = (outcome: Failure | StartupTimes): outcome is Failure => 'kind' in outcome

/** Polls the health endpoint until the engine is ready (undefined), exits, is cancelled or runs out of `ready-timeout`. */
async function untilReady(
  options: StartOptions,
  baseUrl: string,
  group: LaunchedGroup | undefined,
): Promise<Failure | undefined> {
  const { target, adapter, signal } = options
  const timeoutMs = target.settings.readyTimeoutMs
  const outcome = await waitReady({
    id: target.id,
    baseUrl,
    adapter,
    http: options.http ?? httpPorts(),
    timeoutMs,
    log: options.log,
    exit: group?.exitSignal,
    signal,
    lastLogLine: () => group?.log.lastLine(),
    elsewhere: () => {
      const port = hostPort(baseUrl)?.port
      return group && port !== undefined ? elsewhereLine(group.log.listening(), port) : undefined
    },
    pollMs: options.pollIntervalMs,
    progressIntervalMs: options.progressIntervalMs,
  })
  switch (outcome.kind) {
    case 'aborted':
      return {
        kind: 'aborted',
        message: `cancelled while waiting for the engine (after ${formatDuration(outcome.elapsedMs)})`,
      }
    case 'exit': {
      const hint =
        outcome.exit.code === 0 ? ' (the launch command must stay in the foreground while the engine runs)' : ''
      return {
        kind: 'exit',
        message: `launch ${exitText(outcome.exit)} before the engine was ready${hint}`,
        exitCode: outcome.exit.code,
      }
    }
    case 'elsewhere':
      return {
        kind: 'elsewhere',
        message:
          `${baseUrl} refused connections for ${formatDuration(outcome.refusedMs)} while the engine's log says it ` +
          `listens elsewhere: ${outcome.line}; pass {port} to the launch (--port {port}) or set port to the one it listens on`,
      }
    case 'timeout':
      return {
        kind: 'timeout',
        message: `not ready after ${formatDuration(timeoutMs)} (GET ${adapter.healthPath}: ${describeAnswer(outcome.last)})`,
      }
    case 'ready':
      options.log.info(
        `${target.id}: health endpoint ready after ${formatDuration(outcome.elapsedMs)}; sending the smoke request`,
      )
      return undefined
  }
}

/** The smoke request, retried a few times within what is left of `ready-timeout` (at least SMOKE_MIN_MS). */
async function smokeTest(
  options: StartOptions,
  baseUrl: string,
  group: LaunchedGroup | undefined,
  started: number,
): Promise<Failure | undefined> {
  const { signal } = options
  const timeoutMs = options.target.settings.readyTimeoutMs
  let lastError: unknown
  for (let attempt = 1; attempt <= SMOKE_ATTEMPTS; attempt++) {
    const budget = Math.max(started + timeoutMs - Date.now(), SMOKE_MIN_MS)
    const smoke = await race(options.smoke(baseUrl), budget, group?.exitSignal, signal)
    if ('value' in smoke) return undefined
    if ('aborted' in smoke) return { kind: 'aborted', message: 'cancelled during the smoke request' }
    if ('exit' in smoke)
      return {
        kind: 'exit',
        message: `launch ${exitText(smoke.exit)} during the smoke request`,
        exitCode: smoke.exit.code,
      }
    if ('timeout' in smoke)
      return { kind: 'smoke', message: `smoke request got no answer within ${formatDuration(budget)}` }
    lastError = smoke.error
    if (attempt < SMOKE_ATTEMPTS) await race(new Promise(() => undefined), 500, group?.exitSignal, signal)
  }
  return { kind: 'smoke', message: `smoke request failed after ${SMOKE_ATTEMPTS} attempts: ${errorMessage(lastError)}` }
}
