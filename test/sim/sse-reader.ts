/** A deliberately tiny SSE reader for the simulator tests: frames with their arrival time. */

export interface Frame {
  at: number
  /** Parsed JSON, or the string `[DONE]`. */
  data: any
}

export interface Streamed {
  status: number
  sentAt: number
  frames: Frame[]
}

export async function postStream(url: string, body: unknown, signal?: AbortSignal, onFrame?: (f: Frame) => void): Promise<Streamed> {
  const sentAt = performance.now()
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal })
  const frames: Frame[] = []
  if (!res.body) return { status: res.status, sentAt, frames }
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (let reads = 0; reads < 1_000_000; reads++) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      if (!event.startsWith('data: ')) throw new Error(`not an SSE data line: ${event}`)
      const raw = event.slice('data: '.length)
      const frame = { at: performance.now(), data: raw === '[DONE]' ? raw : JSON.parse(raw) }
      frames.push(frame)
      onFrame?.(frame)
    }
  }
  if (buffer.trim() !== '') throw new Error(`stream ended inside an event: ${buffer}`)
  return { status: res.status, sentAt, frames }
}

/** Generated text of a frame (completions `text` or chat `delta.content`). */
export function frameText(frame: Frame): string {
  const choice = frame.data?.choices?.[0]
  return choice?.text ?? choice?.delta?.content ?? ''
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length
}
