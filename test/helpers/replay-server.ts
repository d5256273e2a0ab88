/**
 * Replays a recorded SSE body over loopback, cut into writes the way a test asks: one event
 * per write, several events per write, every event split across two writes (mid-byte, so
 * multi-byte characters straddle reads too), or fixed-size byte slices; optionally CRLF line
 * ends and a delay before each write. Also reads `fixtures/engines/*.chunks.txt` (format in
 * fixtures/engines/README.md).
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type WriteMode =
  | { mode: 'whole' }
  | { mode: 'event' }
  | { mode: 'batch'; events: number }
  | { mode: 'split' }
  | { mode: 'bytes'; size: number }

export interface ReplayOptions {
  body: string
  status?: number
  contentType?: string
  writes?: WriteMode
  /** Wait before each write (ms); separate writes then arrive as separate reads. */
  delayMs?: number
  crlf?: boolean
}

export interface ReplayServer {
  url: string
  /** Requests served so far. */
  hits: number
  /** Parsed JSON bodies of the requests, in order. */
  bodies: unknown[]
  close(): Promise<void>
}

export interface Fixture {
  /** `# key: value` header lines. */
  header: Record<string, string>
  /** The SSE body, byte for byte after the header. */
  body: string
}

export function parseFixture(text: string): Fixture {
  const header: Record<string, string> = {}
  const lines = text.split('\n')
  let i = 0
  for (; i < lines.length && lines[i].startsWith('#'); i++) {
    const m = /^#\s*([\w-]+)\s*:\s*(.*)$/.exec(lines[i])
    if (m) header[m[1]] = m[2].trim()
  }
  return { header, body: lines.slice(i).join('\n') }
}

export function readFixture(path: string): Fixture {
  return parseFixture(readFileSync(path, 'utf8'))
}

/** The body cut into the writes of a mode. Events end at a blank line. */
export function splitWrites(body: string, writes: WriteMode = { mode: 'event' }, crlf = false): Buffer[] {
  const events = body.split(/(?<=\n\n)/).filter((e) => e.length > 0)
  const encode = (s: string) => Buffer.from(crlf ? s.replace(/\n/g, '\r\n') : s, 'utf8')
  switch (writes.mode) {
    case 'whole':
      return [encode(body)]
    case 'event':
      return events.map(encode)
    case 'batch': {
      const out: Buffer[] = []
      for (let i = 0; i < events.length; i += writes.events)
        out.push(encode(events.slice(i, i + writes.events).join('')))
      return out
    }
    case 'split':
      return events
        .map(encode)
        .flatMap((b) => (b.length > 1 ? [b.subarray(0, b.length >> 1), b.subarray(b.length >> 1)] : [b]))
    case 'bytes': {
      const all = encode(body)
      const out: Buffer[] = []
      for (let i = 0; i < all.length; i += writes.size) out.push(all.subarray(i, i + writes.size))
      return out
    }
  }
}

export async function startReplayServer(
  options: ReplayOptions | ((request: number) => ReplayOptions),
): Promise<ReplayServer> {
  const timers = new Set<NodeJS.Timeout>()
  const state = { hits: 0, bodies: [] as unknown[] }
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (b: Buffer) => parts.push(b))
    req.on('end', () => {
      try {
        state.bodies.push(JSON.parse(Buffer.concat(parts).toString('utf8')))
      } catch {
        state.bodies.push(undefined)
      }
      const o = typeof options === 'function' ? options(state.hits) : options
      state.hits++
      const writes = splitWrites(o.body, o.writes, o.crlf)
      res.writeHead(o.status ?? 200, { 'content-type': o.contentType ?? 'text/event-stream' })
      let i = 0
      const next = () => {
        if (res.destroyed) return
        if (i >= writes.length) return void res.end()
        res.write(writes[i++])
        schedule()
      }
      const schedule = () => {
        const timer = setTimeout(() => {
          timers.delete(timer)
          next()
        }, o.delayMs ?? 0)
        timers.add(timer)
      }
      schedule()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    get hits() {
      return state.hits
    },
    bodies: state.bodies,
    async close() {
      for (const t of timers) clearTimeout(t)
      timers.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
