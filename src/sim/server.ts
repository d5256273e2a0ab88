/** The simulator's HTTP face: vLLM's OpenAI-compatible endpoints over node:http. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Api } from '../core/plan.js'
import { draftScale, requestAcceptance, type AcceptanceMode } from './acceptance.js'
import type { StepResult } from './engine.js'
import { renderMetrics, SimCounters } from './metrics-endpoint.js'
import type { Profile, SimFault } from './profile.js'
import { loadProfile } from './profiles.js'
import { PrefixCache } from './prefix-cache.js'
import { rooflineHint } from './roofline-hint.js'
import { cacheControl } from './cache-control.js'
import { RealtimeEngine, type EmissionListener } from './realtime.js'
import { replyLength, replyTokens, type ReplyLength } from './reply.js'
import { BadRequest, parseGenerate, type GenerateRequest } from './parse-request.js'
import { fullReply, ReplyWriter } from './stream.js'
import { chatIds, promptIds } from './tokenizer.js'
import { engineSpeed, randomLaunchSeed, type EngineSpeed, type SpeedOptions } from './speed.js'

export const SIM_VERSION = 'sim-1'

/**
 * The speed knobs (`speed.ts`) come in as plain options: the CLI reads the box factor's environment
 * variable, this function never does.
 */
export interface SimServerOptions extends SpeedOptions {
  /** Profile name (shipped) or path to a profile JSON file. */
  profile: string
  port: number
  host?: string
  /** Divide every modelled duration by this factor (tests; the demo runs at 1). */
  timeScale?: number
  seed?: number
  /** Simulated load time before the port starts listening, in ms (default 0). */
  loadMs?: number
  /** Overrides the profile's `fault`; `none` serves a faulty profile healthy. */
  fault?: SimFault | 'none'
  /** Where draft acceptance comes from (acceptance.ts): the launch's stream (default) or each prompt's. */
  acceptance?: AcceptanceMode
  /** The profile's mean acceptance length × this (default 1). */
  acceptFactor?: number
  /** Gives up loading (rejects) or closes the server when aborted. */
  signal?: AbortSignal
}

export interface SimServer {
  port: number
  /** The parsed profile being served, its `fault` as overridden by the options. */
  profile: Profile
  /** The launch seed used (drawn from node:crypto when none was given) and the launch's speed. */
  launchSeed: number
  speed: EngineSpeed
  close(): Promise<void>
}

const MAX_BODY = 64 * 1024 * 1024

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    let size = 0
    req.on('data', (b: Buffer) => {
      size += b.length
      if (size > MAX_BODY) reject(new BadRequest(`request body over ${MAX_BODY} bytes`, 413))
      else parts.push(b)
    })
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

function apiError(res: ServerResponse, error: BadRequest): void {
  json(res, error.status, { error: { message: error.message, type: error.type, param: null, code: error.status } })
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req)
  try {
    return JSON.parse(text)
  } catch {
    throw new BadRequest('request body is not valid JSON')
  }
}

class SimHttp {
  readonly counters: SimCounters
  private readonly prefixes = new PrefixCache()
  readonly engine: RealtimeEngine
  private requests = 0
  private readonly draftScale: number

  constructor(
    readonly profile: Profile,
    seed: number,
    private readonly timeScale: number,
    speed: EngineSpeed,
    private readonly acceptance: AcceptanceMode = 'draws',
    acceptFactor = 1,
  ) {
    this.counters = new SimCounters(profile.power)
    this.draftScale = profile.speculative ? draftScale(profile.speculative, acceptFactor) : 1
    const launchScale = acceptance === 'draws' ? this.draftScale : 1
    const record = (step: StepResult) => this.counters.record(step)
    this.engine = new RealtimeEngine(profile, seed, timeScale, record, speed, launchScale)
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = performance.now()
    const path = (req.url ?? '/').split('?')[0]
    const route = `${req.method} ${path}`
    try {
      if (route === 'GET /health') return void res.writeHead(200, { 'content-length': 0 }).end()
      if (route === 'GET /version') return json(res, 200, this.version())
      if (route === 'GET /v1/models') return json(res, 200, this.models())
      if (route === 'GET /metrics') {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' })
        return void res.end(renderMetrics(this.profile, this.counters, this.engine.state()))
      }
      if (route === 'POST /tokenize') return json(res, 200, this.tokenize(await jsonBody(req)))
      if (route === 'POST /v1/completions') return this.generate('completions', await jsonBody(req), res, arrivedAt)
      if (route === 'POST /v1/chat/completions') return this.generate('chat', await jsonBody(req), res, arrivedAt)
      const cache = cacheControl(req.method ?? 'GET', path, this.profile, this.engine.inFlight, this.prefixes)
      if (cache) return void res.writeHead(cache.status, { 'content-type': cache.contentType }).end(cache.body)
      const known = [
        '/health',
        '/version',
        '/v1/models',
        '/metrics',
        '/tokenize',
        '/v1/completions',
        '/v1/chat/completions',
      ].includes(path)
      json(res, known ? 405 : 404, { detail: known ? 'Method Not Allowed' : 'Not Found' })
    } catch (error) {
      if (res.headersSent) return void res.destroy()
      if (error instanceof BadRequest) return apiError(res, error)
      apiError(res, new BadRequest(`internal error: ${(error as Error).message}`, 500, 'InternalServerError'))
    }
  }

  private version(): unknown {
    const p = this.profile
    return {
      version: SIM_VERSION,
      profile: p.name,
      emulates: p.emulates,
      ...(p.fault && { fault: p.fault }),
      ...rooflineHint(p, this.timeScale),
    }
  }

  private models(): unknown {
    const p = this.profile
    return {
      object: 'list',
      data: [
        {
          id: p.model,
          object: 'model',
          created: 0,
          owned_by: 'vllm',
          root: p.model,
          parent: null,
          max_model_len: p.maxModelLen,
        },
      ],
    }
  }

  private tokenize(body: unknown): unknown {
    const b = (body ?? {}) as Record<string, unknown>
    const ids = b.messages !== undefined ? chatIds(b.messages) : promptIds(b.prompt)
    if (!ids) throw new BadRequest('tokenize needs {prompt} (string or list) or {messages}')
    return { count: ids.length, max_model_len: this.profile.maxModelLen, tokens: ids, token_strs: null }
  }

  private generate(api: Api, body: unknown, res: ServerResponse, arrivedAt: number): void {
    const request = parseGenerate(api, body, this.profile.model, this.profile.maxModelLen)
    const n = this.requests++
    const id = `${api === 'chat' ? 'chatcmpl' : 'cmpl'}-${n.toString(16).padStart(32, '0')}`
    const token = replyTokens(request.text, this.profile.fault, request.ignoreEos)
    const length = replyLength(request, this.profile.fault)
    let produced = 0
    const text = (tokens: number) => Array.from({ length: tokens }, () => token(produced++)).join('')
    if (request.stream) return this.stream(request, { id, length }, res, text, arrivedAt)
    let all = ''
    const engineId = this.submit(request, length.tokens, arrivedAt, (e) => {
      all += text(e.tokens)
      if (e.done) json(res, 200, fullReply(request, id, all, length))
    })
    res.on('close', () => this.abandon(res, engineId))
  }

  private stream(
    request: GenerateRequest,
    reply: { id: string; length: ReplyLength },
    res: ServerResponse,
    text: (tokens: number) => string,
    arrivedAt: number,
  ): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    })
    res.flushHeaders()
    const writer = new ReplyWriter(request, reply.id, reply.length.finish)
    const engineId = this.submit(request, reply.length.tokens, arrivedAt, (e) => {
      if (res.destroyed) return
      const frames = writer.tokens(text(e.tokens), e.tokens, e.first, e.done)
      if (e.done) res.end(frames + writer.end())
      else res.write(frames)
    })
    res.on('close', () => this.abandon(res, engineId))
  }

  /**
   * Queues a request with what the prefix cache holds of its prompt (none under the `no-prefix-cache` fault),
   * counting the lookup as vLLM does; the prompt's blocks enter the cache when its prefill completes, and under
   * `drafter-drops-prefix-cache` on a drafting profile leave it when the request finishes.
   */
  private submit(request: GenerateRequest, tokens: number, arrivedAt: number, listener: EmissionListener): number {
    const caching = this.profile.fault !== 'no-prefix-cache'
    const drops = this.profile.fault === 'drafter-drops-prefix-cache' && this.profile.speculative !== undefined
    const cached = caching ? this.prefixes.hit(request.ids) : 0
    this.counters.prefixQueries += request.promptTokens
    this.counters.prefixHits += cached
    const emit: EmissionListener = (e) => {
      if (e.first && caching) this.prefixes.insert(request.ids)
      if (e.done && drops) this.prefixes.drop(request.ids)
      listener(e)
    }
    const own =
      this.acceptance === 'prompt' && this.profile.speculative
        ? requestAcceptance(request.text, this.draftScale)
        : undefined
    return this.engine.submit(request.promptTokens, tokens, emit, arrivedAt, !request.ignoreEos, cached, own)
  }

  /** A client that leaves before its last token frees its place in the batch, as vLLM aborts it. */
  private abandon(res: ServerResponse, engineId: number): void {
    if (res.writableFinished) return
    this.engine.cancel(engineId)
    this.counters.requestsAborted += 1
  }
}

function withFault(profile: Profile, fault: SimServerOptions['fault']): Profile {
  return fault === undefined ? profile : { ...profile, fault: fault === 'none' ? undefined : fault }
}

export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const profile = withFault(loadProfile(options.profile), options.fault)
  const timeScale = options.timeScale ?? 1
  if (!(timeScale > 0)) throw new Error(`sim: time scale must be > 0, got ${timeScale}`)
  const launchSeed = options.launchSeed ?? randomLaunchSeed()
  const speed = engineSpeed({ ...options, launchSeed })
  if ((options.loadMs ?? 0) > 0) await sleep(options.loadMs, undefined, { signal: options.signal })
  options.signal?.throwIfAborted()

  const sim = new SimHttp(profile, options.seed ?? 1, timeScale, speed, options.acceptance, options.acceptFactor)
  const server = createServer((req, res) => void sim.handle(req, res))
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })

  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      sim.engine.close()
      server.close(() => resolve())
      server.closeAllConnections()
    })
    return closing
  }
  options.signal?.addEventListener('abort', () => void close(), { once: true })
  return { port: (server.address() as AddressInfo).port, profile, launchSeed, speed, close }
}
