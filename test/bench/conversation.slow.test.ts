/**
 * A `turns` cell through the bench client against a loopback chat server that records every body: each
 * conversation's turns go one after another, each resending the conversation so far with the previous answer as the
 * assistant's message and a new user message; `thinking` rides in `chat_template_kwargs` next to the request
 * body's own kwargs; each record knows its turn and the prompt tokens it added; the round keeps its figures per turn
 * and TTFT per 1,000 added tokens; and the first turn alone is held to `input-tokens`.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient, type MeasureOptions, type RoundProgress } from '../../src/bench/measure.js'
import type { ScenarioPlan } from '../../src/core/plan.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'
import { plainAdapter } from './adapter.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

const TURNS = 3
const OUTPUT = 5
const scenario: ScenarioPlan = {
  id: 'conv',
  inputTokens: 60,
  outputTokens: OUTPUT,
  concurrency: 2,
  requests: 2,
  turns: TURNS,
  turnTokens: 30,
  thinking: false,
}

async function measure(server: ScheduledServer, progress?: Pick<MeasureOptions, 'onRound' | 'progressIntervalMs'>) {
  const client = createBenchClient({
    baseUrl: server.url,
    adapter: plainAdapter,
    model: 'm',
    api: 'chat',
    requestTimeoutMs: 2_000,
    maxConcurrency: 2,
    requestBody: { chat_template_kwargs: { custom: 1 } },
  })
  closers.push(() => client.close())
  return client.measure({ scenario, rounds: 1, discard: 0, maxErrorShare: 0, seed: 1, ...progress })
}

type Message = { role: string; content: string }
const messagesOf = (body: Record<string, unknown>) => body.messages as Message[]

describe('conversations', () => {
  it('resend the conversation so far each turn, with the previous answer, and record each turn', async () => {
    const server = await startScheduledServer({ ttftMs: 10, intervalMs: 2, chatOverhead: 7 })
    closers.push(() => server.close())
    const m = await measure(server)
    const bodies = server.requests.map((r) => r.body).filter((b) => b.max_tokens === OUTPUT)
    expect(bodies).toHaveLength(2 * TURNS)
    for (const body of bodies) expect(body.chat_template_kwargs).toEqual({ custom: 1, enable_thinking: false })
    // Every turn's messages are the previous turn's, then the answer it got, then a new user message.
    const byLength = (n: number) => bodies.filter((b) => messagesOf(b).length === n)
    expect([1, 3, 5].map((n) => byLength(n).length)).toEqual([2, 2, 2])
    for (const later of [...byLength(3), ...byLength(5)]) {
      const messages = messagesOf(later)
      expect(messages.map((x) => x.role)).toEqual([
        'user',
        ...Array(messages.length >> 1)
          .fill(['assistant', 'user'])
          .flat(),
      ])
      const before = bodies.find((b) => JSON.stringify(messagesOf(b)) === JSON.stringify(messages.slice(0, -2)))
      expect(before, 'the previous turn was sent as this one starts').toBeDefined()
      expect(messages.at(-2)!.content).toBe(' w'.repeat(OUTPUT))
    }
    const users = bodies.flatMap((b) =>
      messagesOf(b)
        .filter((x) => x.role === 'user')
        .map((x) => x.content),
    )
    expect(new Set(users).size, 'every user message is unique to its conversation and turn').toBe(2 * TURNS)

    const [round] = m.rounds
    expect(round.requests).toBe(2 * TURNS)
    expect(m.flags).toEqual([])
    const records = m.requests
    expect(records.map((r) => r.turn).sort()).toEqual([1, 1, 2, 2, 3, 3])
    // The server counts 7 + the words of every message: a turn adds the answer and a 30-token message (23 words + 7).
    for (const r of records.filter((x) => x.turn! > 1)) expect(r.addedTokens).toBe(OUTPUT + 23)
    expect(round.turns!.map((t) => [t.turn, t.ok, t.prompt_tokens])).toEqual([
      [1, 2, 60],
      [2, 2, 60 + 28],
      [3, 2, 60 + 56],
    ])
    const later = records.filter((r) => r.turn! > 1)
    const figure = (1000 * later.reduce((s, r) => s + r.ttftMs, 0)) / (later.length * 28)
    expect(round.metrics.ttft_per_1k_added).toBeCloseTo(figure, 6)
    expect(m.metrics!.ttft_per_1k_added).toBeCloseTo(figure, 6)
  })

  it('counts every turn in the progress lines as it ends, with its tokens', async () => {
    const server = await startScheduledServer({ ttftMs: 10, intervalMs: 5, chatOverhead: 7 })
    closers.push(() => server.close())
    const seen: RoundProgress[] = []
    await measure(server, { onRound: (p) => seen.push({ ...p }), progressIntervalMs: 5 })
    // A tick after the first turns ended and before the round's last: requests done and tok/s, not 0 until the end.
    const during = seen.slice(0, -1).filter((p) => p.done > 0)
    expect(during.length, JSON.stringify(seen)).toBeGreaterThan(0)
    expect(during.every((p) => p.done < 2 * TURNS && p.tokensPerSecond > 0)).toBe(true)
    expect(seen.at(-1)!.done).toBe(2 * TURNS)
  })

  it('ends a conversation at a failed turn: the next would resend a broken history', async () => {
    // The fourth generation request (a second turn) fails; its conversation sends no third turn.
    const server = await startScheduledServer({ ttftMs: 10, intervalMs: 2, faults: { httpErrorEvery: 4 } })
    closers.push(() => server.close())
    const m = await measure(server)
    const [round] = m.rounds
    expect(round.errors).toBe(1)
    expect(round.requests).toBe(2 * TURNS - 1)
    expect(round.turns!.map((t) => t.ok)).toEqual([2, 1, 1])
  })
})
