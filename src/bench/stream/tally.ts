/**
 * Per-request bookkeeping of a stream (definitions: README.md here): TTFT at the first
 * token-bearing event, e2e at the last one (never `[DONE]` or the usage chunk), inter-chunk gaps,
 * the server's counts from whichever event carries `usage`, and the engine's own figures.
 */
import { RequestError } from '../../core/errors.js'
import { asRecord } from '../../engines/http.js'
import type { StreamExtrasReader } from '../../engines/types.js'
import { errorText, excerpt, inspectEvent } from './events.js'
import { appendSample } from '../../quality/index.js'

export class StreamTally {
  /** Dispatched SSE events, `[DONE]` included. */
  events = 0
  /** Token-bearing events. */
  chunks = 0
  firstEventAt: number | undefined
  firstTokenAt: number | undefined
  lastTokenAt: number | undefined
  /** Index (in `events`) of the event that set TTFT. */
  ttftEvent: number | undefined
  readonly itl: number[] = []
  promptTokens: number | undefined
  completionTokens: number | undefined
  /** What the engine's reader took from the events, merged (a later event's value wins). */
  extras: Record<string, number> | undefined
  done = false
  /** The generated text's first characters (bounded by appendSample), for the output checks and the quality probe. */
  sample = ''
  /** The whole answer, reasoning left out, when kept (a conversation's next turn resends it); bounded by the stream's bytes. */
  answer: string | undefined

  /**
   * `readExtras` is the engine's own reader of its stream fields (EngineAdapter.streamExtras); `keepAnswer` keeps
   * the answer's text whole.
   */
  constructor(
    private readonly readExtras?: StreamExtrasReader,
    keepAnswer = false,
  ) {
    if (keepAnswer) this.answer = ''
  }

  /** Takes one event parsed at `at` (ms); returns the error that ends the request, if it carries one. */
  add(data: string, type: string | undefined, at: number): RequestError | undefined {
    const index = this.events++
    this.firstEventAt ??= at
    if (this.done) return undefined
    if (data === '[DONE]') {
      this.done = true
      return undefined
    }
    let json: unknown
    try {
      json = JSON.parse(data)
    } catch {
      if (type === 'error') return streamError(excerpt(data))
      return new RequestError(`malformed event: ${excerpt(data, 120)}`, 'malformed')
    }
    const facts = inspectEvent(json)
    if (type === 'error') return streamError(facts.error ?? errorText(json))
    if (facts.error !== undefined) return streamError(facts.error)
    if (facts.usage) {
      // Continuous usage repeats cumulative counts on every chunk: the latest is the total.
      this.promptTokens = facts.usage.promptTokens ?? this.promptTokens
      this.completionTokens = facts.usage.completionTokens ?? this.completionTokens
    }
    const event = this.readExtras ? asRecord(json) : undefined
    const extras = event && this.readExtras?.(event)
    if (extras) this.extras = { ...this.extras, ...extras }
    if (facts.token) {
      if (facts.text) this.sample = appendSample(this.sample, facts.text)
      if (this.answer !== undefined && facts.answer) this.answer += facts.answer
      this.chunks++
      if (this.firstTokenAt === undefined) {
        this.firstTokenAt = at
        this.ttftEvent = index
      } else {
        this.itl.push(at - (this.lastTokenAt as number))
      }
      this.lastTokenAt = at
    }
    return undefined
  }

  /** An `error:` field line outside any event. */
  errorLine(value: string): RequestError {
    let payload: unknown = value
    try {
      payload = JSON.parse(value)
    } catch {
      // plain text error
    }
    return streamError(errorText(payload))
  }
}

function streamError(message: string): RequestError {
  return new RequestError(`stream error: ${message}`, 'stream-error')
}
