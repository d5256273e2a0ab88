/** The bench client's own undici Agent for streamed requests. */
import { Agent } from 'undici'

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
