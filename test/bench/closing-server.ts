/**
 * A loopback engine that behaves as llama.cpp's llama-server does on the wire: it answers
 * `Connection: keep-alive` and `Keep-Alive: timeout=5, max=100`, yet closes the TCP connection
 * shortly after every streamed response. A request a client sends onto that socket in between is
 * never answered (the client sees `other side closed` before any response byte). Raw TCP, so the
 * close is exactly what the test says: one request per connection, then gone.
 */
import net from 'node:net'

export interface ClosingServer {
  url: string
  /** Requests answered. */
  readonly answered: number
  /** Requests that arrived on a connection that had already answered one (never answered). */
  readonly stale: number
  /** Answered requests that asked for `connection: close`. */
  readonly askedClose: number
  close(): Promise<void>
}

const PROMPT_TOKENS = 40
/** How long after the end of a stream the socket is closed: long enough for a client to reuse it first. */
const CLOSE_AFTER_MS = 25

const event = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startClosingServer(o: { itlMs?: number } = {}): Promise<ClosingServer> {
  const counts = { answered: 0, stale: 0, askedClose: 0 }
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    let buffer = Buffer.alloc(0)
    let answered = false
    socket.on('data', (data) => {
      if (answered) return void counts.stale++
      buffer = Buffer.concat([buffer, data])
      const request = parseRequest(buffer)
      if (!request) return
      answered = true
      counts.answered++
      if (/^connection:\s*close/im.test(request.head)) counts.askedClose++
      void stream(socket, request.maxTokens, o.itlMs ?? 1)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    get answered() {
      return counts.answered
    },
    get stale() {
      return counts.stale
    },
    get askedClose() {
      return counts.askedClose
    },
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function parseRequest(buffer: Buffer): { head: string; maxTokens: number } | undefined {
  const end = buffer.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const head = buffer.subarray(0, end).toString('latin1')
  const length = Number(/^content-length:\s*(\d+)/im.exec(head)?.[1] ?? 0)
  if (buffer.length < end + 4 + length) return undefined
  const body = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString('utf8')) as { max_tokens?: number }
  return { head, maxTokens: body.max_tokens ?? 1 }
}

async function stream(socket: net.Socket, tokens: number, itlMs: number): Promise<void> {
  socket.write(
    'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5, max=100\r\nTransfer-Encoding: chunked\r\n\r\n',
  )
  for (let i = 0; i < tokens; i++) {
    await sleep(itlMs)
    socket.write(chunk(event({ choices: [{ index: 0, text: ` w${i}`, finish_reason: null }] })))
  }
  const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: tokens, total_tokens: PROMPT_TOKENS + tokens }
  socket.write(chunk(event({ choices: [{ index: 0, text: '', finish_reason: 'length' }], usage }) + event('[DONE]')))
  socket.write('0\r\n\r\n')
  // Close our side (FIN), as llama-server's close does to the client, but keep reading: a request the client sent
  // before the FIN reached it still arrives and is counted stale. Destroying the socket here instead raced the
  // read on a loaded machine — the timer fires before the poll phase reads bytes already in the kernel — so a
  // request the client had sent went uncounted. The client's own close then ends the socket; a client that never
  // closes is cut a second later.
  setTimeout(() => {
    socket.end()
    setTimeout(() => socket.destroy(), 1000).unref()
  }, CLOSE_AFTER_MS)
}
