/** The bench client's own undici Agent and the small HTTP ports adapters use (`/tokenize`, `/v1/models`). */
import { Agent } from 'undici'
import type { HttpPorts, ProbeAnswer } from '../engines/types.js'

export interface AgentOptions {
  /** Sockets to the engine; at least the highest concurrency, since HTTP/1.1 runs one request per socket. */
  connections: number
  requestTimeoutMs: number
}

/** Keep-alive, no pipelining, and timeouts from the plan instead of undici's 300 s defaults. */
export function createAgent(o: AgentOptions): Agent {
  return new Agent({
    connections: Math.max(1, o.connections),
    pipelining: 1,
    // Below uvicorn's 5 s keep-alive, so we never reuse a socket the server is closing.
    keepAliveTimeout: 4_000,
    headersTimeout: o.requestTimeoutMs,
    bodyTimeout: o.requestTimeoutMs,
    connect: { timeout: Math.min(o.requestTimeoutMs, 30_000) },
  })
}

async function call(agent: Agent, method: 'GET' | 'POST', url: string, body: unknown, timeoutMs: number): Promise<ProbeAnswer> {
  try {
    const target = new URL(url)
    const res = await agent.request({
      origin: target.origin,
      path: target.pathname + target.search,
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    })
    return { status: res.statusCode, body: await res.body.text() }
  } catch {
    // Refused, reset or timed out: the port's convention for "no answer".
    return { status: 0, body: '' }
  }
}

export function agentPorts(agent: () => Agent): HttpPorts {
  return {
    get: (url, timeoutMs) => call(agent(), 'GET', url, undefined, timeoutMs),
    post: (url, body, timeoutMs) => call(agent(), 'POST', url, body, timeoutMs),
  }
}
