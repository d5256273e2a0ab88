/**
 * Waiting for an engine: poll its health endpoint fast, classify each answer with the
 * adapter, print a progress line now and then, and stop early when the process exits or the
 * caller aborts. Loading is not death: before the first ready answer, a 503, any other
 * non-200 or a refused connection means "still loading" for every engine while its process
 * lives (llama.cpp answers refused, then 503 "Loading model", then 200; engines behind a
 * proxy answer 503 while loading). The exit or `ready-timeout` ends the wait, and so does a log that says the engine
 * listens on another port while ours still refuses connections ELSEWHERE_GRACE_MS later (a launch that starts its
 * engine first and a proxy on our port once the engine is up gets that long for the proxy).
 */
import { formatDuration } from '../core/format.js'
import { joinUrl } from '../core/url.js'
import type { EngineAdapter, HttpPorts, ProbeAnswer } from '../engines/types.js'
import type { Logger } from '../core/log.js'
import type { ExitInfo } from './types.js'

export const POLL_MS = 200
export const PROGRESS_MS = 15_000
const PROBE_TIMEOUT_MS = 2000
export const ELSEWHERE_GRACE_MS = 10_000

export interface WaitReadyOptions {
  id: string
  baseUrl: string
  adapter: EngineAdapter
  http: HttpPorts
  timeoutMs: number
  log: Logger
  /** Fires when the launched process exits (reason: ExitInfo); absent for `url:` targets. */
  exit?: AbortSignal
  signal?: AbortSignal
  lastLogLine?: () => string | undefined
  /** The log line saying the engine listens on a port other than the one polled, once there is one. */
  elsewhere?: () => string | undefined
  elsewhereGraceMs?: number
  pollMs?: number
  progressIntervalMs?: number
}

export type WaitOutcome =
  | { kind: 'ready'; elapsedMs: number }
  | { kind: 'exit'; exit: ExitInfo; elapsedMs: number }
  | { kind: 'timeout'; last: ProbeAnswer | undefined; elapsedMs: number }
  | { kind: 'aborted'; elapsedMs: number }
  | { kind: 'elsewhere'; line: string; refusedMs: number; elapsedMs: number }

/** `connection refused`, `HTTP 503: Loading model` — one short line for progress and errors. */
export function describeAnswer(answer: ProbeAnswer | undefined): string {
  if (!answer) return 'no answer yet'
  if (answer.status === 0) return answer.body || 'no connection'
  const body = answer.body.replace(/\s+/g, ' ').trim().slice(0, 120)
  return body ? `HTTP ${answer.status}: ${body}` : `HTTP ${answer.status}`
}

export type RaceOutcome<T> =
  { value: T } | { error: unknown } | { exit: ExitInfo } | { aborted: true } | { timeout: true }

/** An AbortSignal that fires when the process exits, with the ExitInfo as its reason. */
export function exitSignal(exit: Promise<ExitInfo>): AbortSignal {
  const controller = new AbortController()
  void exit.then((info) => controller.abort(info))
  return controller.signal
}

/**
 * Settles with whichever comes first of `promise`, the process exit, the abort or `ms`.
 * The timer and both listeners are released either way (this runs every poll for minutes).
 */
export function race<T>(
  promise: Promise<T>,
  ms: number,
  exit?: AbortSignal,
  signal?: AbortSignal,
): Promise<RaceOutcome<T>> {
  return new Promise((resolve) => {
    let done = false
    const finish = (outcome: RaceOutcome<T>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      exit?.removeEventListener('abort', onExit)
      resolve(outcome)
    }
    const onAbort = () => finish({ aborted: true })
    const onExit = () => finish({ exit: exit!.reason as ExitInfo })
    const timer = setTimeout(() => finish({ timeout: true }), Math.max(0, ms))
    if (exit?.aborted) return onExit()
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    exit?.addEventListener('abort', onExit, { once: true })
    promise.then(
      (value) => finish({ value }),
      (error: unknown) => finish({ error }),
    )
  })
}

export async function waitReady(options: WaitReadyOptions): Promise<WaitOutcome> {
  const { adapter, http, log, exit, signal } = options
  const url = joinUrl(options.baseUrl, adapter.healthPath)
  const pollMs = options.pollMs ?? POLL_MS
  const progressMs = options.progressIntervalMs ?? PROGRESS_MS
  const started = Date.now()
  const elapsed = () => Date.now() - started
  let last: ProbeAnswer | undefined
  let nextProgress = progressMs
  const elsewhere = elsewhereWatch(options)

  for (;;) {
    const remaining = options.timeoutMs - elapsed()
    if (remaining <= 0) return { kind: 'timeout', last, elapsedMs: elapsed() }
    const probe = await race(
      http.get(url, Math.min(PROBE_TIMEOUT_MS, Math.max(100, remaining))),
      remaining,
      exit,
      signal,
    )
    if ('aborted' in probe) return { kind: 'aborted', elapsedMs: elapsed() }
    if ('exit' in probe) return { kind: 'exit', exit: probe.exit, elapsedMs: elapsed() }
    if ('timeout' in probe) return { kind: 'timeout', last, elapsedMs: elapsed() }
    last = 'value' in probe ? probe.value : { status: 0, body: String(probe.error) }
    if (adapter.readiness(last) === 'ready') return { kind: 'ready', elapsedMs: elapsed() }
    const moved = elsewhere(last)
    if (moved) return { kind: 'elsewhere', ...moved, elapsedMs: elapsed() }

    if (elapsed() >= nextProgress) {
      nextProgress += progressMs
      const line = options.lastLogLine?.()
      log.info(
        `${options.id}: waiting for ${adapter.name} to be ready (${formatDuration(Math.round(elapsed() / 100) * 100)} of ${formatDuration(options.timeoutMs)}, ` +
          `GET ${adapter.healthPath}: ${describeAnswer(last)})${line ? `; last log line: ${line.slice(0, 200)}` : ''}`,
      )
    }
    const pause = await race(
      new Promise<void>(() => undefined),
      Math.min(pollMs, options.timeoutMs - elapsed()),
      exit,
      signal,
    )
    if ('aborted' in pause) return { kind: 'aborted', elapsedMs: elapsed() }
    if ('exit' in pause) return { kind: 'exit', exit: pause.exit, elapsedMs: elapsed() }
  }
}

/**
 * Watches for the engine listening elsewhere: the log line once our port has refused connections for the grace
 * since the line was first seen (an answer of any kind on our port means something serves there).
 */
function elsewhereWatch(
  options: WaitReadyOptions,
): (last: ProbeAnswer) => { line: string; refusedMs: number } | undefined {
  const graceMs = options.elsewhereGraceMs ?? ELSEWHERE_GRACE_MS
  let since: number | undefined
  return (last) => {
    const line = last.status === 0 ? options.elsewhere?.() : undefined
    if (line === undefined) {
      since = undefined
      return undefined
    }
    since ??= Date.now()
    const refusedMs = Date.now() - since
    return refusedMs >= graceMs ? { line, refusedMs } : undefined
  }
}
