/**
 * The small HTTP port adapters and the readiness probe use: one GET or POST with a hard
 * timeout, a fresh connection each time (nothing pooled is left open), and network
 * failures folded into `status: 0` so a loading engine is an answer, not an exception.
 */
import http from 'node:http'
import https from 'node:https'
import type { HttpPorts, ProbeAnswer } from './types.js'

/** Bodies past this are cut: /metrics of a busy engine is well under it, a runaway one is not our problem. */
const MAX_BODY_BYTES = 8 * 1024 * 1024

function networkFailure(error: unknown): ProbeAnswer {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ECONNREFUSED') return { status: 0, body: 'connection refused' }
  return { status: 0, body: code ? `${code}: ${(error as Error).message}` : String((error as Error).message ?? error) }
}

function send(
  method: 'GET' | 'POST',
  url: string,
  payload: string | undefined,
  timeoutMs: number,
): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    let settled = false
    const finish = (answer: ProbeAnswer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(answer)
    }
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      finish({ status: 0, body: `invalid URL ${url}` })
      return
    }
    const client = parsed.protocol === 'https:' ? https : http
    const headers: Record<string, string> = { connection: 'close', accept: 'application/json, text/plain, */*' }
    if (payload !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = String(Buffer.byteLength(payload))
    }
    const req = client.request(parsed, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => {
        if (size >= MAX_BODY_BYTES) return
        chunks.push(chunk)
        size += chunk.length
        if (size >= MAX_BODY_BYTES) res.destroy()
      })
      const done = () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') })
      res.on('end', done)
      res.on('close', done)
      res.on('error', done)
    })
    const timer = setTimeout(() => {
      req.destroy()
      finish({ status: 0, body: `no answer within ${timeoutMs} ms` })
    }, timeoutMs)
    req.on('error', (error) => finish(networkFailure(error)))
    req.end(payload)
  })
}

/** Loopback GET/POST; POST bodies are sent as JSON. */
export function httpPorts(): HttpPorts {
  return {
    get: (url, timeoutMs) => send('GET', url, undefined, timeoutMs),
    post: (url, body, timeoutMs) => send('POST', url, JSON.stringify(body), timeoutMs),
  }
}

/** Info calls are short: an engine that is up answers these in milliseconds. */
export const INFO_TIMEOUT_MS = 5000

function parseJson(answer: ProbeAnswer): unknown {
  if (answer.status < 200 || answer.status >= 300) return undefined
  try {
    return JSON.parse(answer.body)
  } catch {
    return undefined
  }
}

/** GET a JSON document; undefined on any failure, never throws (callers record what they could get). */
export async function getJson(ports: HttpPorts, url: string, timeoutMs = INFO_TIMEOUT_MS): Promise<unknown> {
  return parseJson(await ports.get(url, timeoutMs).catch(() => ({ status: 0, body: '' })))
}

export async function postJson(
  ports: HttpPorts,
  url: string,
  body: unknown,
  timeoutMs = INFO_TIMEOUT_MS,
): Promise<unknown> {
  return parseJson(await ports.post(url, body, timeoutMs).catch(() => ({ status: 0, body: '' })))
}

/** Narrowing helper for untyped JSON. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** Copies the listed keys that are present and not null. */
export function pick(source: Record<string, unknown> | undefined, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of keys) if (source?.[key] !== undefined && source[key] !== null) out[key] = source[key]
  return out
}
