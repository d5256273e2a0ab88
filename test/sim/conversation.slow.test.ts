/**
 * The simulator's chat endpoint with conversations: system, user and assistant messages each count through the
 * template (4 tokens a message, 3 for the reply header) and feed the prefix cache, so a conversation's next turn
 * hits the blocks of the turn before; the `drafter-drops-prefix-cache` fault drops a request's blocks when it ends
 * on a drafting profile (every turn prefilled whole) and leaves a profile without a drafter healthy.
 */
import { describe, expect, it } from 'vitest'
import { sumByName } from '../../src/engines/prometheus.js'
import { startSimServer, type SimServerOptions } from '../../src/sim/index.js'
import { CHAT_TOKENS_PER_MESSAGE, CHAT_TOKENS_REPLY } from '../../src/sim/tokenizer.js'
import { frameText, postStream } from '../helpers/sse-client.js'
import { profileFiles } from './profile-file.js'

const profileFile = profileFiles('sim-conversation-')
const FLAT = profileFile('flat')
const SPEC = profileFile('spec', { speculative: { method: 'mtp', k: 3, accept: [0.25, 0.25, 0.25, 0.25] } })

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ')

/** Two turns of one conversation; the second turn's usage and the prefix-cache hits it added. */
async function twoTurns(options: Partial<SimServerOptions>) {
  const server = await startSimServer({ profile: FLAT, port: 0, timeScale: 20, ...options })
  const base = `http://127.0.0.1:${server.port}`
  const hits = async () => {
    const text = await (await fetch(`${base}/metrics`)).text()
    return sumByName(text, ['vllm:prefix_cache_hits_total'])['vllm:prefix_cache_hits_total'] ?? 0
  }
  const send = async (messages: { role: string; content: string }[]) => {
    const body = { model: 'm', messages, max_tokens: 8, stream: true, stream_options: { include_usage: true } }
    const { frames } = await postStream(`${base}/v1/chat/completions`, body)
    const usage = frames.at(-2)!.data.usage as { prompt_tokens: number }
    return { answer: frames.slice(1, -2).map(frameText).join(''), promptTokens: usage.prompt_tokens }
  }
  try {
    const first: { role: string; content: string }[] = [
      { role: 'system', content: words(20, 's') },
      { role: 'user', content: words(60, 'u') },
    ]
    const one = await send(first)
    const before = await hits()
    const two = await send([
      ...first,
      { role: 'assistant', content: one.answer },
      { role: 'user', content: words(30, 'v') },
    ])
    return { one, two, hits: (await hits()) - before }
  } finally {
    await server.close()
  }
}

describe('conversations on the simulator', () => {
  it('counts every message through the template and serves the previous turn from the prefix cache', async () => {
    const { one, two, hits } = await twoTurns({})
    expect(one.promptTokens).toBe(2 * CHAT_TOKENS_PER_MESSAGE + 80 + CHAT_TOKENS_REPLY)
    expect(two.promptTokens).toBe(4 * CHAT_TOKENS_PER_MESSAGE + 80 + 8 + 30 + CHAT_TOKENS_REPLY)
    // The first turn's 91 tokens are 5 whole blocks of 16: the second turn's first 80 tokens come from the cache.
    expect(hits).toBe(80)
  })

  it('drops a drafting profile’s blocks under drafter-drops-prefix-cache: the next turn hits nothing', async () => {
    expect((await twoTurns({ profile: SPEC })).hits).toBe(80)
    expect((await twoTurns({ profile: SPEC, fault: 'drafter-drops-prefix-cache' })).hits).toBe(0)
  })

  it('leaves a profile without a drafter healthy under the same fault', async () => {
    expect((await twoTurns({ fault: 'drafter-drops-prefix-cache' })).hits).toBe(80)
  })
})
