/**
 * The bench client's streaming sockets: one undici Agent sized to the highest concurrency asked
 * of it so far. A cell that needs more in flight gets a fresh, larger Agent (the old one closes
 * once its requests are done), so undici never queues a request out of our sight.
 */
import type { Agent } from 'undici'
import { createAgent } from './agent.js'

export interface AgentPool {
  /** The Agent to dispatch on now; changes only through `ensure`. */
  readonly agent: Agent
  /** Makes room for `inFlight` concurrent requests, replacing the Agent when it has fewer sockets. */
  ensure(inFlight: number): Promise<void>
  /** Destroys the current Agent and its sockets. */
  destroy(): Promise<void>
}

export function createAgentPool(o: { connections: number; requestTimeoutMs: number }): AgentPool {
  let capacity = Math.max(1, o.connections)
  let agent = createAgent({ connections: capacity, requestTimeoutMs: o.requestTimeoutMs })
  return {
    get agent() {
      return agent
    },
    async ensure(inFlight) {
      if (inFlight <= capacity) return
      const old = agent
      capacity = inFlight
      agent = createAgent({ connections: capacity, requestTimeoutMs: o.requestTimeoutMs })
      await old.close()
    },
    destroy: () => agent.destroy(),
  }
}
