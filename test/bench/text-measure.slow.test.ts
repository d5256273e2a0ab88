/**
 * The bench client measuring `prompts: text` cells against a loopback server, for both APIs: every request the
 * server received has the calibrated length as the server counts it (words, or a subword-like count with a chat
 * template the tokenizer does not see), prompts are unique from their first words across calibration and every
 * round, and word-list cells send exactly what they sent before.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient } from '../../src/bench/measure.js'
import { BLOCK_SIZE, promptIndices } from '../../src/bench/prompts/indices.js'
import { FIXED_WORDS, promptText } from '../../src/bench/prompts/prompt.js'
import type { Api, ScenarioPlan } from '../../src/core/plan.js'
import type { EngineAdapter } from '../../src/engines/types.js'
import { countWords } from '../../src/sim/tokenizer.js'
import { startScheduledServer, type ReceivedRequest } from '../../harness/scheduled-server.js'
import { plainAdapter, tokenizingAdapter } from './adapter.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** SentencePiece-like: BOS, a token per four letters of a word, one per trailing punctuation mark. */
const subword = (text: string) =>
  1 +
  text
    .split(/\s+/)
    .filter(Boolean)
    .reduce((n, w) => {
      const mark = /[.,:;!?]+$/.exec(w)?.[0] ?? ''
      return n + mark.length + Math.ceil((w.length - mark.length) / 4)
    }, 0)

const TEXT: ScenarioPlan = { id: 't', inputTokens: 300, outputTokens: 4, concurrency: 2, requests: 6, prompts: 'text' }

async function measure(o: {
  api: Api
  adapter: EngineAdapter
  countTokens?: (text: string) => number
  scenario?: ScenarioPlan
}) {
  const server = await startScheduledServer({ ttftMs: 2, intervalMs: 1, countTokens: o.countTokens })
  closers.push(() => server.close())
  const client = createBenchClient({
    baseUrl: server.url,
    adapter: o.adapter,
    model: undefined,
    api: o.api,
    requestTimeoutMs: 5_000,
    maxConcurrency: 2,
  })
  closers.push(() => client.close())
  const cell = await client.measure({ scenario: o.scenario ?? TEXT, rounds: 3, discard: 1, maxErrorShare: 0, seed: 1 })
  return { cell, requests: server.requests }
}

const promptOf = (r: ReceivedRequest): string =>
  typeof r.body.prompt === 'string' ? r.body.prompt : (r.body.messages as { content: string }[])[0].content
const measured = (requests: ReceivedRequest[]) => requests.filter((r) => r.body.max_tokens !== 1)

describe.each(['completions', 'chat'] as const)('prompts: text over %s', (api) => {
  it.each([
    ['words', undefined],
    ['subword-like tokens', subword],
  ] as const)('the server counts %s: every request exactly the input length', async (_, countTokens) => {
    const { cell, requests } = await measure({ api, adapter: tokenizingAdapter, countTokens })
    expect(cell.flags).toEqual([])
    expect(cell.rounds.map((r) => [r.requests, r.errors, r.achieved.promptTokens])).toEqual(
      Array(3).fill([6, 0, { min: 300, max: 300 }]),
    )
    const sent = measured(requests)
    expect(sent).toHaveLength(18)
    expect(sent.map((r) => r.promptTokens)).toEqual(Array(18).fill(300))
    // Calibration probes and every round's requests: no two share their opening (words two to four).
    const openings = requests.map((r) => promptOf(r).split(' ').slice(0, FIXED_WORDS).join(' '))
    expect(new Set(openings).size).toBe(requests.length)
    for (const r of sent)
      expect(promptOf(r)).toMatch(/^From [A-Z][a-z]+ [A-Z][a-z]+ in [A-Z][a-z]+: please .+\n\n[A-Z]/s)
  })
})

describe('prompts: text without a tokenizer endpoint', () => {
  it('a server that counts words still gets the exact length', async () => {
    const { cell, requests } = await measure({ api: 'chat', adapter: plainAdapter })
    expect(cell.flags).toEqual([])
    expect(measured(requests).map((r) => r.promptTokens)).toEqual(Array(18).fill(300))
  })

  it('a subword tokenizer gives each request its own count, and the cell is flagged', async () => {
    const { cell } = await measure({ api: 'completions', adapter: plainAdapter, countTokens: subword })
    expect(cell.flags.some((f) => f.startsWith('lengths-missed: prompt'))).toBe(true)
  })
})

describe('prompts: synthetic', () => {
  it("sends the word-list prompts, the probe's from the service block, the rounds' index after index from the cell's own", async () => {
    const synthetic: ScenarioPlan = { id: 's', inputTokens: 300, outputTokens: 4, concurrency: 2, requests: 6 }
    const { cell, requests } = await measure({ api: 'completions', adapter: tokenizingAdapter, scenario: synthetic })
    expect(cell.flags).toEqual([])
    // One confirming probe (index 1 of block 0, after the tokenizer's index 0), then the rounds' requests from the
    // first index of the cell's block (indices.ts; two in flight, so the server may see a pair swapped).
    const filler = 300 - FIXED_WORDS
    const first = promptIndices().cell('s')
    expect(first % BLOCK_SIZE).toBe(0)
    expect(first).toBeGreaterThan(0)
    const expected = [promptText(1, filler), ...Array.from({ length: 18 }, (_, k) => promptText(first + k, filler))]
    expect(requests.map(promptOf).sort()).toEqual(expected.sort())
    expect(requests.map((r) => countWords(promptOf(r)))).toEqual(Array(19).fill(300))
  })
})
