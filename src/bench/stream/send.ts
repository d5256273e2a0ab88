/**
 * Streamed requests with one retry for a connection the server closed before answering. An
 * HTTP/1.1 server may close an idle keep-alive connection at any moment, and a client that sent
 * a request onto it just then sees the close before any response byte (RFC 9112 §9.3.1; undici
 * reports `UND_ERR_SOCKET: other side closed`). Such a request was never answered, so it is sent
 * once more, on a connection of its own that closes after it, and the outcome says it was
 * retried (the round counts it). A second failure stands. Engines that close after every stream
 * get a fresh connection per request from the start (`EngineAdapter.freshConnectionPerRequest`).
 */
import type { AgentPool } from './agent-pool.js'
import { createAgent } from './agent.js'
import { sendStreamed, type StreamOutcome, type StreamRequest } from './request.js'

export type StreamSender = (req: StreamRequest) => Promise<StreamOutcome>

export interface SenderOptions {
  pool: AgentPool
  /** Every request on a connection of its own (`Connection: close`). */
  freshConnection: boolean
  requestTimeoutMs: number
}

export function createSender(o: SenderOptions): StreamSender {
  return async (req) => {
    const first = await sendStreamed(o.pool.agent, { ...req, reset: o.freshConnection })
    if (!first.closedBeforeResponse || req.signal?.aborted) return first
    // A one-socket Agent of its own: the pool may hold other idle sockets the server is closing.
    const agent = createAgent({ connections: 1, requestTimeoutMs: o.requestTimeoutMs })
    try {
      const second = await sendStreamed(agent, { ...req, reset: true })
      return { ...second, retried: true }
    } finally {
      await agent.destroy()
    }
  }
}
