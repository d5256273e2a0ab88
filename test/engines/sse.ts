/** A small streaming POST for tests: every SSE event with its arrival time, and how the stream ended. */
import http from 'node:http'

export interface StreamResult {
  status: number
  events: { data: string; json?: Record<string, any>; at: number }[]
  /** ms from send to the end of the response */
  endMs: number
  done: boolean
  cut: boolean
  body: string
}

export function streamPost(url: string, body: unknown, timeoutMs = 10_000): Promise<StreamResult> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body)
    const t0 = performance.now()
    const result: StreamResult = { status: 0, events: [], endMs: 0, done: false, cut: false, body: '' }
    let buffer = ''
    const req = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      result.status = res.statusCode ?? 0
      res.setEncoding('utf8')
      res.on('data', (text: string) => {
        const at = performance.now() - t0
        result.body += text
        buffer += text
        let sep: number
        while ((sep = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, sep)
          buffer = buffer.slice(sep + 2)
          const data = frame.replace(/^data: ?/, '')
          if (data === '[DONE]') result.done = true
          else result.events.push({ data, at, json: data.startsWith('{') ? JSON.parse(data) : undefined })
        }
      })
      res.on('end', () => {
        result.endMs = performance.now() - t0
        clearTimeout(timer)
        resolve(result)
      })
      res.on('error', () => undefined)
      res.on('close', () => {
        if (!res.complete) {
          result.cut = true
          result.endMs = performance.now() - t0
          clearTimeout(timer)
          resolve(result)
        }
      })
    })
    const timer = setTimeout(() => {
      req.destroy()
      reject(new Error(`no end within ${timeoutMs} ms`))
    }, timeoutMs)
    req.on('error', (error) => {
      if (result.status) {
        result.cut = true
        resolve(result)
      } else reject(error)
      clearTimeout(timer)
    })
    req.end(payload)
  })
}
