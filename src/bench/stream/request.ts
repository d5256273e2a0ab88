/**
 * One streamed request over undici. The send time is stamped when undici hands the request
 * to its socket (`onRequestStart`), not when we call `dispatch`: on a reused keep-alive socket
 * undici first yields one event-loop turn to check the socket is still open, and under load
 * that turn can take milliseconds that are ours, not the engine's. The time from due to sent
 * is the request's queue time (RequestRecord.queueMs), recorded, never hidden. Every event is
 * stamped with `performance.now()` as it is parsed, straight from undici's body callback. Every
 * way a request can fail becomes a `RequestError` with a kind; the caller decides whether the
 * run goes on.
 */
import type { Dispatcher } from 'undici'
import { RequestError, errorMessage } from '../../core/errors.js'
import { formatBytes, formatDuration } from '../../core/format.js'
import type { StreamExtrasReader } from '../../engines/types.js'
import { excerpt } from './events.js'
import { createSseReader, type SseReader } from './sse.js'
import { StreamTally } from './tally.js'

export interface StreamRequest {
  /** Full endpoint URL (`http://127.0.0.1:8000/v1/completions`). */
  url: URL
  /** JSON request body, already serialized. */
  body: string
  /** A request fails when no token arrives within this long of the send or of the previous token. */
  timeoutMs: number
  signal?: AbortSignal
  /** The engine's reader of its own event fields (EngineAdapter.streamExtras). */
  streamExtras?: StreamExtrasReader
  /** `max_tokens` of the request: the stream's bounds derive from it (see `streamBounds`). */
  maxTokens?: number
  /** Send `Connection: close` and close the socket after this request (undici `reset`). */
  reset?: boolean
  /** Keep the answer's whole text (`StreamTally.answer`): a conversation resends it in its next turn. */
  keepAnswer?: boolean
}

/**
 * What a stream may cost before it is cut, however the server behaves. A server that never ends the stream
 * (every token refreshes the timeout) or floods it must end the request, not the run: token events past twice
 * `max_tokens` (+16; an engine may split a token's bytes over two events), events of any kind past four times
 * it (+64), bytes past 1 MiB + 16 KiB a token, and a whole-request deadline of the timeout plus two seconds a
 * token (at most the timeout each) — slower than half a token per second is not a benchmark.
 */
export function streamBounds(timeoutMs: number, maxTokens = DEFAULT_MAX_TOKENS) {
  return {
    tokenEvents: 2 * maxTokens + 16,
    events: 4 * maxTokens + 64,
    bytes: 1024 * 1024 + 16 * 1024 * maxTokens,
    totalMs: timeoutMs + 2 * maxTokens * Math.min(timeoutMs, 1000),
  }
}

/** Bounds for a request whose `max_tokens` the caller did not say. */
const DEFAULT_MAX_TOKENS = 4096

export interface StreamOutcome {
  /** `performance.now()` right before the request went onto its socket (the dispatch time if it never did). */
  sentAt: number
  tally: StreamTally
  error?: RequestError
  /** The connection closed before any response byte (a reused socket the server was closing): safe to send again. */
  closedBeforeResponse?: true
  /** This outcome is of the second attempt, on a fresh connection, after the first closed before a response. */
  retried?: true
  /** A digest of the prompt sent (FNV-1a of its text), so a round can say which prompts it sent. */
  prompt?: number
}

const HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' }
/** undici's own timeouts stay just behind ours so the clearer message wins. */
const UNDICI_GRACE_MS = 1_000
const ERROR_BODY_BYTES = 2_048

export function sendStreamed(dispatcher: Dispatcher, req: StreamRequest): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const run = new StreamRun(req, resolve)
    const handler = responseHandler(run)
    if (req.signal?.aborted) return run.abort()
    req.signal?.addEventListener('abort', run.abort, { once: true })
    const options: Dispatcher.DispatchOptions = {
      origin: req.url.origin,
      path: req.url.pathname + req.url.search,
      method: 'POST',
      headers: HEADERS,
      body: req.body,
      headersTimeout: req.timeoutMs + UNDICI_GRACE_MS,
      bodyTimeout: req.timeoutMs + UNDICI_GRACE_MS,
      ...(req.reset && { reset: true }),
    }
    run.sentAt = performance.now()
    try {
      dispatcher.dispatch(options, handler)
    } catch (error) {
      run.fail(classify(error, false), false)
      run.finish()
    }
  })
}

/** One request from dispatch to outcome: the first failure wins, and the outcome is delivered once. */
class StreamRun {
  readonly tally: StreamTally
  readonly bounds: ReturnType<typeof streamBounds>
  /** Response bytes so far. */
  bytes = 0
  /** The dispatch time, re-stamped when undici puts the request on its socket. */
  sentAt = performance.now()
  failure: RequestError | undefined
  closedBeforeResponse = false
  private controller: Dispatcher.DispatchController | undefined
  private settled = false
  private readonly req: StreamRequest
  private readonly resolve: (outcome: StreamOutcome) => void
  private readonly timer: NodeJS.Timeout
  private readonly deadline: NodeJS.Timeout

  constructor(req: StreamRequest, resolve: (outcome: StreamOutcome) => void) {
    this.req = req
    this.resolve = resolve
    this.tally = new StreamTally(req.streamExtras, req.keepAnswer)
    this.bounds = streamBounds(req.timeoutMs, req.maxTokens)
    this.timer = setTimeout(
      () => this.fail(new RequestError(`timeout: no token within ${formatDuration(req.timeoutMs)}`, 'timeout')),
      req.timeoutMs,
    )
    const total = this.bounds.totalMs
    this.deadline = setTimeout(
      () => this.fail(new RequestError(`timeout: the stream did not end within ${formatDuration(total)}`, 'timeout')),
      total,
    )
  }

  /** Counts a body chunk against the byte bound; false once the stream is cut. */
  took(bytes: number): boolean {
    this.bytes += bytes
    if (this.bytes <= this.bounds.bytes) return true
    this.fail(
      new RequestError(
        `malformed stream: more than ${formatBytes(this.bounds.bytes)} for max_tokens ${this.req.maxTokens ?? 'unset'}`,
        'malformed',
      ),
    )
    return false
  }

  /** Checks the event bounds after an event; false once the stream is cut. */
  withinEvents(): boolean {
    const { tally, bounds } = this
    if (tally.chunks > bounds.tokenEvents)
      this.fail(
        new RequestError(
          `malformed stream: ${tally.chunks} token events for max_tokens ${this.req.maxTokens ?? 'unset'} and still no end`,
          'malformed',
        ),
      )
    else if (tally.events > bounds.events)
      this.fail(new RequestError(`malformed stream: ${tally.events} events and still no end`, 'malformed'))
    else return true
    return false
  }

  /** The caller's signal fired. */
  readonly abort = (): void => this.fail(new RequestError('aborted', 'aborted'))

  /** undici put the request on a socket: stamp the send, and abandon it at once if it failed meanwhile. */
  onSocket(controller: Dispatcher.DispatchController): void {
    this.sentAt = performance.now()
    this.controller = controller
    if (this.failure) controller.abort(this.failure)
  }

  /** A token-bearing event arrived: the timeout counts from here. */
  tokenArrived(): void {
    this.timer.refresh()
  }

  /** Records the first failure; the stream is abandoned unless it already ended. */
  fail(error: RequestError, abandon = true): void {
    if (this.failure) return
    this.failure = error
    if (!abandon) return
    if (this.controller && !this.controller.aborted) this.controller.abort(error)
    else this.finish() // not on a socket yet: undici is told at onRequestStart
  }

  finish(): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.timer)
    clearTimeout(this.deadline)
    this.req.signal?.removeEventListener('abort', this.abort)
    const early = this.failure && this.closedBeforeResponse ? { closedBeforeResponse: true as const } : {}
    this.resolve({ sentAt: this.sentAt, tally: this.tally, error: this.failure, ...early })
  }
}

/** The response side: a 200 body is read as SSE into the tally; any other status keeps the start of its body for the error. */
function responseHandler(run: StreamRun): Dispatcher.DispatchHandler {
  const reader = tallyReader(run)
  let started = false
  let status = 0
  let errorBody: Buffer[] | undefined
  let errorBytes = 0
  const httpError = () => {
    const text = Buffer.concat(errorBody ?? [])
      .subarray(0, ERROR_BODY_BYTES)
      .toString('utf8')
    return new RequestError(`HTTP ${status}: ${excerpt(text) || '(empty body)'}`, 'http', status)
  }
  return {
    onRequestStart: (controller) => run.onSocket(controller),
    onResponseStart(_c, statusCode) {
      started = true
      status = statusCode
      if (statusCode !== 200) errorBody = []
    },
    onResponseData(_c, chunk) {
      if (run.failure || !run.took(chunk.length)) return
      if (!errorBody) return reader.feed(chunk)
      errorBody.push(chunk)
      errorBytes += chunk.length
      if (errorBytes >= ERROR_BODY_BYTES) run.fail(httpError()) // enough to say what went wrong
    },
    onResponseEnd() {
      if (errorBody) run.fail(httpError(), false)
      else if (!run.failure) {
        reader.end()
        if (!run.failure && run.tally.firstTokenAt === undefined)
          run.fail(new RequestError('stream ended without a token', 'malformed'), false)
      }
      run.finish()
    },
    onResponseError(_c, error) {
      if (!started && !run.failure && isSocketClose(error)) run.closedBeforeResponse = true
      run.fail(classify(error, started), false)
      run.finish()
    },
  }
}

/** SSE events into the run's tally; an in-band error or an oversized event fails the request. */
function tallyReader(run: StreamRun): SseReader {
  const { tally } = run
  return createSseReader({
    event(data, type) {
      if (run.failure) return
      const chunks = tally.chunks
      const error = tally.add(data, type, performance.now())
      if (error) run.fail(error)
      else if (run.withinEvents() && tally.chunks !== chunks) run.tokenArrived()
    },
    errorLine: (value) => run.fail(tally.errorLine(value)),
    overflow: () => run.fail(new RequestError('malformed stream: an event exceeded 16 MiB', 'malformed')),
  })
}

const SOCKET_CLOSED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])

function isSocketClose(error: unknown): boolean {
  return SOCKET_CLOSED.has((error as { code?: string } | undefined)?.code ?? '')
}

function classify(error: unknown, started: boolean): RequestError {
  if (error instanceof RequestError) return error
  const code = (error as { code?: string } | undefined)?.code
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return new RequestError(`timeout: ${errorMessage(error)}`, 'timeout')
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
      return new RequestError('aborted', 'aborted')
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return started
        ? new RequestError('stream cut: connection closed mid-stream', 'cut')
        : new RequestError(`connection closed before a response (${code})`, 'network')
    default:
      return new RequestError(`connection failed: ${code ?? errorMessage(error)}`, 'network')
  }
}
