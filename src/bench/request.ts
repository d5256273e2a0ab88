/**
 * One streamed request over undici. The send time is taken right before dispatch, every
 * event is stamped with `performance.now()` as it is parsed, and every way a request can
 * fail becomes a `RequestError` with a kind: the caller decides whether the run goes on.
 */
import type { Dispatcher } from 'undici'
import { RequestError, errorMessage } from '../errors.js'
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
}

export interface StreamOutcome {
  /** `performance.now()` right before the request was handed to undici. */
  sentAt: number
  tally: StreamTally
  error?: RequestError
}

const HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' }
/** undici's own timeouts stay just behind ours so the clearer message wins. */
const UNDICI_GRACE_MS = 1_000
const ERROR_BODY_BYTES = 2_048

export function formatMs(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`
  if (ms >= 1_000 && ms % 1_000 === 0) return `${ms / 1_000}s`
  return `${ms}ms`
}

export async function sendStreamed(dispatcher: Dispatcher, req: StreamRequest): Promise<StreamOutcome> {
  const tally = new StreamTally()
  if (req.signal?.aborted) return { sentAt: performance.now(), tally, error: new RequestError('aborted', 'aborted') }
  const controller = new AbortController()
  let failure: RequestError | undefined
  let started = false
  const fail = (error: RequestError, abort = true) => {
    if (failure) return
    failure = error
    if (abort) controller.abort(error)
  }
  const onOuterAbort = () => fail(new RequestError('aborted', 'aborted'))
  req.signal?.addEventListener('abort', onOuterAbort, { once: true })
  const timer = setTimeout(() => fail(new RequestError(`timeout: no token within ${formatMs(req.timeoutMs)}`, 'timeout')), req.timeoutMs)

  const sentAt = performance.now()
  try {
    const res = await dispatcher.request({
      origin: req.url.origin,
      path: req.url.pathname + req.url.search,
      method: 'POST',
      headers: HEADERS,
      body: req.body,
      signal: controller.signal,
      headersTimeout: req.timeoutMs + UNDICI_GRACE_MS,
      bodyTimeout: req.timeoutMs + UNDICI_GRACE_MS,
    })
    started = true
    if (res.statusCode !== 200) {
      const text = await readExcerpt(res.body)
      fail(new RequestError(`HTTP ${res.statusCode}: ${excerpt(text) || '(empty body)'}`, 'http', res.statusCode))
    } else {
      await consume(res.body, tally, timer, fail, () => failure !== undefined)
      if (!failure && tally.firstTokenAt === undefined) fail(new RequestError('stream ended without a token', 'malformed'), false)
    }
  } catch (error) {
    fail(classify(error, started), false)
  } finally {
    clearTimeout(timer)
    req.signal?.removeEventListener('abort', onOuterAbort)
  }
  return { sentAt, tally, error: failure }
}

function consume(
  body: Dispatcher.ResponseData['body'],
  tally: StreamTally,
  timer: NodeJS.Timeout,
  fail: (error: RequestError) => void,
  failed: () => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const reader = createSseReader({
      event(data, type) {
        if (failed()) return
        const chunks = tally.chunks
        const error = tally.add(data, type, performance.now())
        if (error) fail(error)
        else if (tally.chunks !== chunks) timer.refresh()
      },
      errorLine: (value) => fail(tally.errorLine(value)),
      overflow: () => fail(new RequestError('malformed stream: an event exceeded 16 MiB', 'malformed')),
    })
    body.on('data', (bytes: Buffer) => {
      if (!failed()) reader.feed(bytes)
    })
    body.once('end', () => {
      if (!failed()) reader.end()
      resolve()
    })
    body.once('error', reject)
  })
}

async function readExcerpt(body: Dispatcher.ResponseData['body']): Promise<string> {
  const parts: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of body) {
      parts.push(chunk as Buffer)
      size += (chunk as Buffer).length
      if (size >= ERROR_BODY_BYTES) break
    }
  } catch {
    // a body cut short still gives what arrived
  }
  if (!body.destroyed) body.destroy()
  return Buffer.concat(parts).subarray(0, ERROR_BODY_BYTES).toString('utf8')
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
