/**
 * SSE framing over raw response bytes. Network reads never align with events (one read may hold
 * half an event, or several): bytes are decoded as streaming UTF-8 and only whole lines reach the
 * parser, so an old llama.cpp `error: {…}` line split across reads is still seen whole.
 */
import { createParser } from 'eventsource-parser'

export interface SseSink {
  /** One dispatched event: its `data` and its `event:` type, if any. */
  event(data: string, type: string | undefined): void
  /** An `error:` field line (not `event: error`), as older llama.cpp builds send. */
  errorLine(value: string): void
  /** The stream exceeded the buffer bound without completing an event. */
  overflow(): void
}

export interface SseReader {
  feed(bytes: Uint8Array): void
  /** End of body: flush an event the server left unterminated. */
  end(): void
}

/** Bound on one buffered event, so a runaway stream cannot eat memory. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024

export function createSseReader(sink: SseSink): SseReader {
  const decoder = new TextDecoder()
  let tail = ''
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent: (e) => sink.event(e.data, e.event),
    onError: (error) => {
      if (error.type === 'unknown-field' && error.field === 'error') sink.errorLine(error.value ?? '')
      else if (error.type === 'max-buffer-size-exceeded') sink.overflow()
    },
  })
  const push = (text: string) => {
    try {
      parser.feed(text)
    } catch {
      sink.overflow()
    }
  }
  return {
    feed(bytes) {
      const text = tail + decoder.decode(bytes, { stream: true })
      const cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'))
      if (cut < 0) {
        tail = text
        if (tail.length > MAX_EVENT_CHARS) sink.overflow()
        return
      }
      tail = text.slice(cut + 1)
      push(text.slice(0, cut + 1))
    },
    end() {
      const rest = tail + decoder.decode()
      tail = ''
      push(`${rest}\n\n`)
    },
  }
}
