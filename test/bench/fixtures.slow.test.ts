/**
 * Every recorded engine stream, replayed over loopback under several cuts into writes, must
 * give the TTFT event, token counts and errors its header states (fixtures/engines/README.md).
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Agent } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { createAgent } from '../../src/bench/stream/agent.js'
import { toRecord } from '../../src/bench/stream/record.js'
import { sendStreamed } from '../../src/bench/stream/request.js'
import { engineByName } from '../../src/engines/registry.js'
import { traceLag } from '../helpers/lag-trace.js'
import { readFixture, startReplayServer, type WriteMode } from '../helpers/replay-server.js'

const DIR = join(import.meta.dirname, '../../fixtures/engines')
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.chunks.txt'))
  .sort()

const cuts: { name: string; writes: WriteMode; crlf?: boolean; delayMs?: number }[] = [
  { name: 'whole body in one write', writes: { mode: 'whole' } },
  { name: 'one event per write', writes: { mode: 'event' } },
  { name: 'three events per write', writes: { mode: 'batch', events: 3 } },
  { name: 'every event split across two writes', writes: { mode: 'split' }, delayMs: 2 },
  { name: '7-byte slices with CRLF', writes: { mode: 'bytes', size: 7 }, crlf: true },
  { name: 'one event per write with CRLF', writes: { mode: 'event' }, crlf: true },
]

let agent: Agent | undefined
const getAgent = () => (agent ??= createAgent({ connections: 4, requestTimeoutMs: 5_000 }))
afterAll(async () => {
  await agent?.destroy()
})

async function replay(file: string, cut: (typeof cuts)[number]) {
  const fixture = readFixture(join(DIR, file))
  // The recorded engine's adapter reads its own stream fields, as the bench client does.
  const adapter = engineByName(fixture.header.engine)
  const server = await startReplayServer({
    body: fixture.body,
    writes: cut.writes,
    crlf: cut.crlf,
    delayMs: cut.delayMs,
  })
  try {
    const url = new URL(`${server.url}/v1/completions`)
    const outcome = await sendStreamed(getAgent(), {
      url,
      body: '{}',
      timeoutMs: 5_000,
      streamExtras: adapter.streamExtras,
    })
    return { fixture, adapter, outcome, record: toRecord({ index: 0, queueMs: 0, expectedPromptTokens: -1 }, outcome) }
  } finally {
    await server.close()
  }
}

describe('recorded engine streams', () => {
  it('covers every engine and case', () => {
    for (const engine of ['vllm', 'sglang', 'llamacpp']) {
      for (const c of ['plain', 'chat', 'speculative', 'usage-with-choices', 'error'])
        expect(files).toContain(`${engine}-${c}.chunks.txt`)
    }
  })

  describe.each(files)('%s', (file) => {
    it.each(cuts)('$name', async (cut) => {
      const { fixture, adapter, outcome, record } = await replay(file, cut)
      const h = fixture.header
      expect(record.ttftEvent).toBe(Number(h['ttft-event']))
      expect(record.chunks).toBe(Number(h.chunks))
      if (h.error) {
        expect(record.ok).toBe(false)
        expect(outcome.error?.kind).toBe(h.error)
        expect(record.error).toContain(h['error-message'])
        return
      }
      expect(record.ok).toBe(true)
      expect(record.error).toBeUndefined()
      expect(record.outputTokens).toBe(Number(h['output-tokens']))
      expect(record.promptTokens).toBe(Number(h['prompt-tokens']))
      expect(record.usageReported).toBe(h.usage === 'reported')
      expect(record.itlMs).toHaveLength(record.chunks - 1)
      expect(outcome.tally.done).toBe(true)
      // `draft: drafted/accepted`: the acceptance the engine's adapter computes from this one request.
      const spec = adapter.specDecode?.(undefined, undefined, [record])
      if (h.draft) expect(`${spec?.draftTokens}/${spec?.acceptedTokens}`).toBe(h.draft)
      else expect(record.extras).toBeUndefined()
    })
  })

  // Timing: one event every 20 ms, so the TTFT event's arrival is known from its index.
  it.each(files.filter((f) => !f.includes('error')))(
    '%s: TTFT is the arrival of the first token event, e2e of the last',
    async (file) => {
      const delay = 20
      const lag = traceLag()
      const { fixture, record } = await replay(file, {
        name: 'timed',
        writes: { mode: 'event' },
        delayMs: delay,
      }).finally(() => lag.stop())
      const ttftEvent = Number(fixture.header['ttft-event'])
      // Write i leaves after i+1 chained timers of `delay` each. A libuv timer is due against the loop's clock, kept
      // in whole milliseconds (uv_now), so each can fire up to 1 ms before `delay` has passed on performance.now()
      // (39.998 ms for two 20 ms timers has been seen), or up to 1 ms after. Server and client share this thread's
      // loop: the chain falls behind by no more than the loop was held over the request (traced), and 2 ms more
      // covers the trip over loopback.
      const links = ttftEvent + 1
      expect(record.ttftMs).toBeGreaterThanOrEqual(links * (delay - 1))
      const held = lag.heldWithin(record.sentAt, record.sentAt + record.ttftMs)
      expect(record.ttftMs).toBeLessThanOrEqual(links * (delay + 1) + held + 2)
      // From the first token to the last are chunks − 1 more chained timers, each at least delay − 1 ms; the first
      // token's stamp may itself be late by what held the loop when it arrived (traced), which shortens the span.
      const firstLate = lag.lateBy(record.sentAt + record.ttftMs)
      expect(record.e2eMs - record.ttftMs).toBeGreaterThanOrEqual((record.chunks - 1) * (delay - 1) - firstLate - 2)
    },
  )
})
