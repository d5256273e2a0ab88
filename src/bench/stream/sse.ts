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

/** Bound on one buffered line or event, so a runaway stream cannot eat memory. */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024

/**
 * Whole lines only reach the parser, so an `error:` field line split across reads is reported whole. The
 * partial line is kept as fragments and joined once, when its line ends, so a line costs time linear in its
 * length however it arrives; past MAX_EVENT_CHARS the stream is refused.
 */
export function createSseReader(sink: SseSink): SseReader {
  const decoder = new TextDecoder()
  let fragments: string[] = []
  let pending = 0
  let failed = false
  const overflow = () => {
    if (failed) return
    failed = true
    sink.overflow()
  }
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent: (e) => sink.event(e.data, e.event),
    onError: (error) => {
      if (error.type === 'unknown-field' && error.field === 'error') sink.errorLine(error.value ?? '')
      else if (error.type === 'max-buffer-size-exceeded') overflow()
    },
  })
  const push = (text: string) => {
    try {
      parser.feed(text)
    } catch {
      overflow()
    }
  }
  return {
    feed(bytes) {
      if (failed) return
      const text = decoder.decode(bytes, { stream: true })
      const cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'))
      if (cut < 0) {
        fragments.push(text)
        pending += text.length
        if (pending > MAX_EVENT_CHARS) overflow()
        return
      }
      const lines = fragments.length ? fragments.join('') + text.slice(0, cut + 1) : text.slice(0, cut + 1)
      const rest = text.slice(cut + 1)
      fragments = rest ? [rest] : []
      pending = rest.length
      push(lines)
    },
    end() {
      if (failed) return
      const rest = fragments.join('') + decoder.decode()
      fragments = []
      // End of body: an event the server left unterminated is still dispatched.
      push(`${rest}\n\n`)
    },
  }
}
