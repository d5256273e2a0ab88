/**
 * A loopback OpenAI-compatible server that streams on an exact schedule: the first token
 * `ttftMs` after the request body arrived, then a chunk every `intervalMs`, `tokensPerChunk`
 * tokens per chunk, `outputTokens` in all (default: the request's `max_tokens`), then the usage
 * chunk and `[DONE]`. Writes are timed against absolute deadlines, so lateness never
 * accumulates. Serves `/v1/completions`, `/v1/chat/completions`, `/v1/models` and a
 * `/tokenize` that counts like the prompt counter below.
 *
 * Prompt tokens are whitespace-separated words (or `countTokens`'s), plus `chatOverhead` for the chat template.
 *
 * A request with `ignore_eos: false` (the quality probe) gets EOS_AFTER tokens at most and
 * `finish_reason: "stop"`, as a real engine stops at its end-of-sequence token.
 *
 * Fault injection counts only generation requests asking for more than one token and ignoring
 * end-of-sequence, so the 1-token smoke and calibration requests and the probe never trip it. Every `cutEvery`-th such request is
 * cut mid-stream (the socket closes after a few chunks, the chunked body never ends), every
 * `httpErrorEvery`-th gets HTTP `httpErrorStatus` with a JSON body, every `streamErrorEvery`-th
 * gets an in-band `data: {"error": …}`, every `stallEvery`-th gets only keep-alive comments.
 * When several pick the same request, the HTTP error wins, then the stall, the cut, the stream error.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Faults {
  cutEvery?: number
  /** Token chunks written before the cut (default 2). */
  cutAfterChunks?: number
  httpErrorEvery?: number
  httpErrorStatus?: number
  streamErrorEvery?: number
  /** Token chunks written before the in-band error (default 2). */
  streamErrorAfterChunks?: number
  stallEvery?: number
}

export interface ScheduledServerOptions {
  ttftMs?: number
  intervalMs?: number
  tokensPerChunk?: number
  /** Tokens per request; default the request's `max_tokens`. */
  outputTokens?: number
  /**
   * Chat role chunk: `with-first-token` (same write as the first token, as vLLM and SGLang do),
   * `early` (right away, before any token, as llama.cpp does with progress updates), or `none`.
   */
  roleChunk?: 'with-first-token' | 'early' | 'none'
  /** Send the usage chunk (default true). */
  usage?: boolean
  /** Send `data: [DONE]` (default true). */
  done?: boolean
  /** Prompt tokens the chat template adds (default 7). */
  chatOverhead?: number
  model?: string
  faults?: Faults
  /** Tokens of a prompt text, for usage and `/tokenize` (default: whitespace-separated words). */
  countTokens?: (text: string) => number
}

export interface ReceivedRequest {
  path: string
  body: Record<string, unknown>
  promptTokens: number
  /** When the request's headers arrived and when its body was complete (the schedule's zero), as epoch ms with sub-ms precision (`performance.timeOrigin + performance.now()`), comparable across processes. */
  arrivedAt: number
  startedAt: number
  /** When the first token was written (same clock), once it was. */
  firstTokenAt?: number
}

export interface ScheduledServer {
  url: string
  /** Generation requests in arrival order. */
  requests: ReceivedRequest[]
  /** How late each first-token write was against its schedule (ms): the server's share of any error. */
  firstTokenLateness: number[]
  close(): Promise<void>
}

interface Step {
  at: number
  /** Rendered at write time, so a burst of arriving requests is not slowed by rendering whole streams. */
  text: () => string
  /** Token chunks written once this step is out. */
  chunks: number
  first?: boolean
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length

function promptTokensOf(
  path: string,
  body: Record<string, unknown>,
  chatOverhead: number,
  count: (text: string) => number,
): number {
  if (path.endsWith('/chat/completions')) {
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : []
    return chatOverhead + messages.reduce((n, m) => n + (typeof m.content === 'string' ? count(m.content) : 0), 0)
  }
  return typeof body.prompt === 'string' ? count(body.prompt) : 0
}

function chunk(chat: boolean, model: string, id: string, text: string, finish: string | null, role = false): string {
  const choice = chat
    ? {
        index: 0,
        delta: role ? { role: 'assistant', content: '' } : { content: text },
        logprobs: null,
        finish_reason: finish,
      }
    : { index: 0, text, logprobs: null, finish_reason: finish }
  const object = chat ? 'chat.completion.chunk' : 'text_completion'
  return `data: ${JSON.stringify({ id, object, created: 1, model, choices: [choice] })}\n\n`
}

function plan(
  o: Required<Omit<ScheduledServerOptions, 'faults' | 'outputTokens' | 'countTokens'>>,
  chat: boolean,
  reply: { n: number; finish: string },
  prompt: number,
  t0: number,
  id: string,
): Step[] {
  const { n, finish } = reply
  const steps: Step[] = []
  const k = Math.max(1, o.tokensPerChunk)
  const count = Math.ceil(n / k)
  const role = () => chunk(true, o.model, id, '', null, true)
  if (chat && o.roleChunk === 'early') steps.push({ at: t0, text: role, chunks: 0 })
  for (let j = 0; j < count; j++) {
    const tokens = Math.min(k, n - j * k)
    const body = () => chunk(chat, o.model, id, ' w'.repeat(tokens), j === count - 1 ? finish : null)
    const text = j === 0 && chat && o.roleChunk === 'with-first-token' ? () => role() + body() : body
    steps.push({ at: t0 + o.ttftMs + j * o.intervalMs, text, chunks: j + 1, first: j === 0 })
  }
  const tail = () => {
    const usage = { prompt_tokens: prompt, completion_tokens: n, total_tokens: prompt + n }
    const object = chat ? 'chat.completion.chunk' : 'text_completion'
    return (
      (o.usage ? `data: ${JSON.stringify({ id, object, created: 1, model: o.model, choices: [], usage })}\n\n` : '') +
      (o.done ? 'data: [DONE]\n\n' : '')
    )
  }
  const last = steps[steps.length - 1]
  if (last) {
    const text = last.text
    last.text = () => text() + tail()
  }
  return steps
}

/** Tokens a reply that honours end-of-sequence has before it stops. */
const EOS_AFTER = 4

const every = (n: number, k: number | undefined) => n > 0 && k !== undefined && k > 0 && n % k === 0

export async function startScheduledServer(options: ScheduledServerOptions = {}): Promise<ScheduledServer> {
  const o = {
    ttftMs: options.ttftMs ?? 50,
    intervalMs: options.intervalMs ?? 10,
    tokensPerChunk: options.tokensPerChunk ?? 1,
    roleChunk: options.roleChunk ?? 'with-first-token',
    usage: options.usage ?? true,
    done: options.done ?? true,
    chatOverhead: options.chatOverhead ?? 7,
    model: options.model ?? 'scheduled-model',
  }
  const faults = options.faults ?? {}
  const count = options.countTokens ?? words
  const requests: ReceivedRequest[] = []
  const firstTokenLateness: number[] = []
  const cancels = new Set<() => void>()
  let generations = 0

  const stream = (
    res: ServerResponse,
    received: ReceivedRequest,
    steps: Step[],
    stopAfterChunks: number | undefined,
    onStop: () => void,
  ) => {
    let i = 0
    let timer: NodeJS.Timeout | undefined
    const cancel = () => clearTimeout(timer)
    cancels.add(cancel)
    res.on('close', () => {
      cancel()
      cancels.delete(cancel)
    })
    const tick = () => {
      const now = performance.now()
      while (i < steps.length && steps[i].at <= now) {
        const step = steps[i++]
        res.write(step.text())
        if (step.first) {
          firstTokenLateness.push(now - step.at)
          received.firstTokenAt = performance.timeOrigin + performance.now()
        }
        if (stopAfterChunks !== undefined && step.chunks >= stopAfterChunks) return onStop()
      }
      if (i < steps.length) timer = setTimeout(tick, Math.max(0, Math.ceil(steps[i].at - performance.now())))
      else res.end()
    }
    tick()
  }

  const generate = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    body: Record<string, unknown>,
    t0: number,
    arrivedAt: number,
  ) => {
    const chat = path.endsWith('/chat/completions')
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : 16
    const stops = body.ignore_eos === false
    const n = stops ? Math.min(EOS_AFTER, maxTokens) : (options.outputTokens ?? maxTokens)
    const prompt = promptTokensOf(path, body, o.chatOverhead, count)
    const received: ReceivedRequest = {
      path,
      body,
      promptTokens: prompt,
      arrivedAt,
      startedAt: performance.timeOrigin + t0,
    }
    requests.push(received)
    const nth = maxTokens > 1 && !stops ? ++generations : 0
    if (every(nth, faults.httpErrorEvery)) {
      const status = faults.httpErrorStatus ?? 500
      res.writeHead(status, { 'content-type': 'application/json' })
      return res.end(
        JSON.stringify({ error: { message: 'injected failure', type: 'InternalServerError', code: status } }),
      )
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    if (every(nth, faults.stallEvery)) {
      const ping = setInterval(() => res.write(': keep-alive\n\n'), 20)
      const stop = () => clearInterval(ping)
      cancels.add(stop)
      req.socket.on('close', stop)
      return
    }
    const steps = plan(o, chat, { n, finish: stops ? 'stop' : 'length' }, prompt, t0, `req-${requests.length}`)
    if (every(nth, faults.cutEvery))
      return stream(res, received, steps, faults.cutAfterChunks ?? 2, () => res.socket?.end())
    if (every(nth, faults.streamErrorEvery)) {
      return stream(res, received, steps, faults.streamErrorAfterChunks ?? 2, () => {
        res.write(
          `data: ${JSON.stringify({ error: { message: 'injected stream failure', type: 'InternalServerError', code: 500 } })}\n\n`,
        )
        res.end('data: [DONE]\n\n')
      })
    }
    stream(res, received, steps, undefined, () => undefined)
  }

  const server = createServer((req, res) => {
    const arrivedAt = performance.timeOrigin + performance.now()
    const parts: Buffer[] = []
    req.on('data', (b: Buffer) => parts.push(b))
    req.on('end', () => {
      const t0 = performance.now()
      const path = (req.url ?? '/').split('?')[0]
      let body: Record<string, unknown>
      try {
        body = parts.length ? (JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>) : {}
      } catch {
        res.writeHead(400).end('bad json')
        return
      }
      if (req.method === 'GET' && path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ object: 'list', data: [{ id: o.model, object: 'model' }] }))
      }
      if (req.method === 'POST' && path === '/tokenize') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ count: typeof body.prompt === 'string' ? count(body.prompt) : 0 }))
      }
      if (req.method === 'POST' && (path === '/v1/completions' || path === '/v1/chat/completions'))
        return generate(req, res, path, body, t0, arrivedAt)
      res.writeHead(404).end('not found')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    firstTokenLateness,
    async close() {
      for (const cancel of cancels) cancel()
      cancels.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
