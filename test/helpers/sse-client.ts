/**
 * The tests' one SSE client: a streaming POST over a fresh connection, each `data:` frame with the time its
 * chunk arrived (performance.now(); frames of one chunk share it), and how the stream ended. A 200 response
 * must be well-formed SSE (every event a `data:` line, nothing left over at the end), so a test catches a
 * server that frames its stream wrongly; another status keeps its body as it came.
 */
import http from 'node:http'

export interface Frame {
  /** performance.now() when the frame's chunk arrived. */
  at: number
  /** The parsed JSON payload, or the string `[DONE]`. */
  data: any
}

export interface Streamed {
  status: number
  /** performance.now() when the request was sent. */
  sentAt: number
  /** Every frame, `[DONE]` included. */
  frames: Frame[]
  /** The JSON frames only (`[DONE]` left out), as `json` beside the raw `data`. */
  events: { at: number; data: string; json: Record<string, any> }[]
  /** The stream ended with `data: [DONE]`. */
  done: boolean
  /** The connection closed before the response was complete. */
  cut: boolean
  /** ms from the send to the end of the response. */
  endMs: number
  body: string
}

export interface StreamOptions {
  signal?: AbortSignal
  onFrame?: (frame: Frame) => void
  timeoutMs?: number
}

export function postStream(url: string, body: unknown, o: StreamOptions = {}): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const sentAt = performance.now()
    const result: Streamed = { status: 0, sentAt, frames: [], events: [], done: false, cut: false, endMs: 0, body: '' }
    let buffer = ''
    let settled = false
    const finish = (error?: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      o.signal?.removeEventListener('abort', onAbort)
      result.endMs = performance.now() - sentAt
      if (error) reject(error)
      else resolve(result)
    }
    const onFrame = (raw: string, at: number) => {
      if (!raw.startsWith('data:')) throw new Error(`not an SSE data line: ${raw}`)
      const text = raw.replace(/^data: ?/, '')
      const frame: Frame = { at, data: text === '[DONE]' ? text : JSON.parse(text) }
      if (text === '[DONE]') result.done = true
      else result.events.push({ at, data: text, json: frame.data })
      result.frames.push(frame)
      o.onFrame?.(frame)
    }
    const req = http.request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        result.status = res.statusCode ?? 0
        res.setEncoding('utf8')
        res.on('data', (text: string) => {
          const at = performance.now()
          result.body += text
          if (result.status !== 200) return
          buffer += text
          try {
            for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
              const event = buffer.slice(0, end)
              buffer = buffer.slice(end + 2)
              onFrame(event, at)
            }
          } catch (error) {
            req.destroy()
            finish(error as Error)
          }
        })
        res.on('error', () => undefined)
        res.on('close', () => {
          if (!res.complete) result.cut = true
          else if (result.status === 200 && buffer.trim() !== '')
            return finish(new Error(`stream ended inside an event: ${buffer}`))
          finish()
        })
      },
    )
    const timeoutMs = o.timeoutMs ?? 30_000
    const timer = setTimeout(() => {
      req.destroy()
      finish(new Error(`no end within ${timeoutMs} ms`))
    }, timeoutMs)
    const onAbort = () => {
      req.destroy()
      finish(o.signal?.reason instanceof Error ? o.signal.reason : new Error('aborted'))
    }
    if (o.signal?.aborted) return onAbort()
    o.signal?.addEventListener('abort', onAbort, { once: true })
    req.on('error', (error) => {
      if (result.status) {
        result.cut = true
        finish()
      } else finish(error)
    })
    req.end(JSON.stringify(body))
  })
}

/** Generated text of a frame (completions `text` or chat `delta.content`). */
export function frameText(frame: Frame): string {
  const choice = frame.data?.choices?.[0]
  return choice?.text ?? choice?.delta?.content ?? ''
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length
}
