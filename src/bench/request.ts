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
import { RequestError, errorMessage } from '../core/errors.js'
import { formatDuration } from '../core/format.js'
import type { StreamExtrasReader } from '../engines/types.js'
import { excerpt } from './events.js'
import { createSseReader } from './sse.js'
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
}

export interface StreamOutcome {
  /** `performance.now()` right before the request went onto its socket (the dispatch time if it never did). */
  sentAt: number
  tally: StreamTally
  error?: RequestError
}

const HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' }
/** undici's own timeouts stay just behind ours so the clearer message wins. */
const UNDICI_GRACE_MS = 1_000
const ERROR_BODY_BYTES = 2_048

export function sendStreamed(dispatcher: Dispatcher, req: StreamRequest): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const tally = new StreamTally(req.streamExtras)
    let controller: Dispatcher.DispatchController | undefined
    let failure: RequestError | undefined
    let started = false
    let settled = false
    let errorBody: Buffer[] | undefined
    let errorBytes = 0
    let status = 0
    let sentAt = performance.now()

    const finish = () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.signal?.removeEventListener('abort', onOuterAbort)
      resolve({ sentAt, tally, error: failure })
    }
    /** Records the first failure; the stream is abandoned unless it already ended. */
    const fail = (error: RequestError, abandon = true) => {
      if (failure) return
      failure = error
      if (!abandon) return
      if (controller && !controller.aborted) controller.abort(error)
      else finish() // not on a socket yet: undici is told at onRequestStart
    }
    const onOuterAbort = () => fail(new RequestError('aborted', 'aborted'))
    const timer = setTimeout(() => fail(new RequestError(`timeout: no token within ${formatDuration(req.timeoutMs)}`, 'timeout')), req.timeoutMs)
    const httpError = () => {
      const text = Buffer.concat(errorBody ?? []).subarray(0, ERROR_BODY_BYTES).toString('utf8')
      return new RequestError(`HTTP ${status}: ${excerpt(text) || '(empty body)'}`, 'http', status)
    }
    const reader = createSseReader({
      event(data, type) {
        if (failure) return
        const chunks = tally.chunks
        const error = tally.add(data, type, performance.now())
        if (error) fail(error)
        else if (tally.chunks !== chunks) timer.refresh()
      },
      errorLine: (value) => fail(tally.errorLine(value)),
      overflow: () => fail(new RequestError('malformed stream: an event exceeded 16 MiB', 'malformed')),
    })

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        sentAt = performance.now()
        controller = c
        if (failure) c.abort(failure)
      },
      onResponseStart(_c, statusCode) {
        started = true
        status = statusCode
        if (statusCode !== 200) errorBody = []
      },
      onResponseData(_c, chunk) {
        if (failure) return
        if (!errorBody) return reader.feed(chunk)
        errorBody.push(chunk)
        errorBytes += chunk.length
        if (errorBytes >= ERROR_BODY_BYTES) fail(httpError()) // enough to say what went wrong
      },
      onResponseEnd() {
        if (errorBody) fail(httpError(), false)
        else if (!failure) {
          reader.end()
          if (!failure && tally.firstTokenAt === undefined) fail(new RequestError('stream ended without a token', 'malformed'), false)
        }
        finish()
      },
      onResponseError(_c, error) {
        fail(classify(error, started), false)
        finish()
      },
    }

    if (req.signal?.aborted) return onOuterAbort()
    req.signal?.addEventListener('abort', onOuterAbort, { once: true })
    const options: Dispatcher.DispatchOptions = {
      origin: req.url.origin,
      path: req.url.pathname + req.url.search,
      method: 'POST',
      headers: HEADERS,
      body: req.body,
      headersTimeout: req.timeoutMs + UNDICI_GRACE_MS,
      bodyTimeout: req.timeoutMs + UNDICI_GRACE_MS,
    }
    sentAt = performance.now()
    try {
      dispatcher.dispatch(options, handler)
    } catch (error) {
      fail(classify(error, false), false)
      finish()
    }
  })
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
