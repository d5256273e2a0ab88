/** The simulator against the quality checks, end to end over HTTP: probe answers, greedy replies, and the two faults. */
import { describe, expect, it } from 'vitest'
import type { GreedyOutput } from '../../src/core/quality.js'
import {
  checkDegenerate,
  greedyAgreement,
  GREEDY_MAX_TOKENS,
  GREEDY_PROMPTS,
  probeQuestions,
  PROBE_MAX_TOKENS,
  scoreProbe,
  tallyDegenerate,
} from '../../src/quality/index.js'
import { parseProfile, startSimServer, type SimServerOptions } from '../../src/sim/index.js'
import { profileFiles } from './profile-file.js'
import { frameText, postStream } from '../helpers/sse-client.js'

/** Profile files with round numbers, so the schedule is easy to derive. */
const profileFile = profileFiles('sim-quality-')

const SPEC = { speculative: { method: 'mtp', k: 3, accept: [0.25, 0.25, 0.25, 0.25] } }
const HEALTHY = profileFile('healthy', SPEC)
const DEGENERATE = profileFile('broken', { ...SPEC, fault: 'degenerate' })
const WRONG = profileFile('wrong', { ...SPEC, fault: 'wrong-answers' })

interface Client {
  /** Streamed text and the completion tokens each chunk reported. */
  stream(
    prompt: string,
    maxTokens: number,
    api?: 'chat' | 'completions',
  ): Promise<{ text: string; chunkTokens: number[] }>
  get(path: string): Promise<unknown>
}

async function withServer<T>(options: Partial<SimServerOptions>, fn: (client: Client) => Promise<T>): Promise<T> {
  const server = await startSimServer({ profile: HEALTHY, port: 0, timeScale: 50, ...options })
  const base = `http://127.0.0.1:${server.port}`
  const client: Client = {
    async stream(prompt, maxTokens, api = 'chat') {
      const common = {
        max_tokens: maxTokens,
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      }
      const body = api === 'chat' ? { ...common, messages: [{ role: 'user', content: prompt }] } : { ...common, prompt }
      const { status, frames } = await postStream(`${base}/v1/${api === 'chat' ? 'chat/' : ''}completions`, body)
      expect(status).toBe(200)
      const tokens = frames.filter((f) => f.data !== '[DONE]' && f.data.choices.length > 0 && frameText(f) !== '')
      const counts = tokens.map((f) => f.data.usage.completion_tokens as number)
      return { text: tokens.map(frameText).join(''), chunkTokens: counts.map((c, i) => c - (counts[i - 1] ?? 0)) }
    },
    get: async (path) => (await fetch(`${base}${path}`)).json(),
  }
  try {
    return await fn(client)
  } finally {
    await server.close()
  }
}

const QUESTIONS = probeQuestions(1, 40)

async function probe(client: Client) {
  const replies = await Promise.all(
    QUESTIONS.map((q, i) => client.stream(q.text, PROBE_MAX_TOKENS, i % 2 === 0 ? 'chat' : 'completions')),
  )
  return {
    replies: replies.map((r) => r.text),
    score: scoreProbe(
      QUESTIONS,
      replies.map((r) => r.text),
    ),
  }
}

async function greedy(client: Client): Promise<GreedyOutput[]> {
  return Promise.all(
    GREEDY_PROMPTS.map(async (prompt) => ({ prompt, text: (await client.stream(prompt, GREEDY_MAX_TOKENS)).text })),
  )
}

const BENCH_PROMPT =
  'Note the of and to time people year way day man thing woman life child world school state family student group'

describe('healthy profile', () => {
  it('answers every probe question, over chat and completions, within max_tokens', async () => {
    await withServer({}, async (client) => {
      const { replies, score } = await probe(client)
      expect(score).toMatchObject({ questions: 40, correct: 40, accuracy: 1 })
      expect(replies[0].startsWith(` The answer is ${QUESTIONS[0].answer}.`)).toBe(true)
      const short = await client.stream(QUESTIONS[1].text, 2)
      expect(short.text).toBe(' The answer')
    })
  })

  it('replies to a prompt the same way on every server, whatever its seed, and differently to another prompt', async () => {
    const a = await withServer({ seed: 1 }, greedy)
    const b = await withServer({ seed: 2 }, greedy)
    expect(greedyAgreement(b, a)).toEqual({ mean: 1, prompts: GREEDY_PROMPTS.length })
    expect(new Set(a.map((o) => o.text)).size).toBe(GREEDY_PROMPTS.length)
  })

  it('streams text the degenerate-output checks pass', async () => {
    await withServer({}, async (client) => {
      const texts = await Promise.all([0, 1, 2, 3].map((i) => client.stream(`${BENCH_PROMPT} ${i}`, 400)))
      expect(tallyDegenerate(texts.map((t) => checkDegenerate(t.text)))).toMatchObject({ judged: 4, degenerate: 0 })
    })
  })
})

describe('fault: degenerate', () => {
  it("streams 's for every token on the healthy schedule: same chunks, same token counts", async () => {
    const run = (options: Partial<SimServerOptions>) =>
      withServer({ seed: 5, ...options }, (client) => client.stream(BENCH_PROMPT, 300))
    const healthy = await run({})
    const broken = await run({ profile: DEGENERATE })
    expect(broken.chunkTokens).toEqual(healthy.chunkTokens)
    expect(broken.chunkTokens.reduce((a, b) => a + b, 0)).toBe(300)
    expect(broken.text).toBe("'s".repeat(300))
    expect(checkDegenerate(broken.text)).toMatchObject({ degenerate: true, kind: 'repeat', fragment: "'s" })
  })

  it('fails the probe and agrees with nothing the healthy engine said', async () => {
    const baseline = await withServer({}, greedy)
    await withServer({ profile: DEGENERATE }, async (client) => {
      expect((await probe(client)).score.accuracy).toBe(0)
      expect(greedyAgreement(await greedy(client), baseline)?.mean).toBe(0)
      expect(await client.get('/version')).toMatchObject({ profile: 'broken', fault: 'degenerate' })
    })
  })

  it('the fault option breaks a healthy profile, and none heals a broken one', async () => {
    expect(
      await withServer({ fault: 'degenerate' }, async (client) => (await client.stream(BENCH_PROMPT, 3)).text),
    ).toBe("'s's's")
    await withServer({ profile: DEGENERATE, fault: 'none' }, async (client) => {
      expect((await probe(client)).score.accuracy).toBe(1)
      expect(await client.get('/version')).not.toHaveProperty('fault')
    })
  })
})

describe('fault: wrong-answers', () => {
  it('answers every probe question off by 1–9 and leaves other text unchanged', async () => {
    const baseline = await withServer({}, greedy)
    await withServer({ profile: WRONG }, async (client) => {
      const { score } = await probe(client)
      expect(score.accuracy).toBe(0)
      for (const miss of score.misses) expect(miss.got! - miss.expected).toSatisfy((d: number) => d >= 1 && d <= 9)
      expect(greedyAgreement(await greedy(client), baseline)?.mean).toBe(1)
      // The same wrong answer every time: the fault is deterministic.
      expect((await probe(client)).score.misses).toEqual(score.misses)
    })
  })
})

describe('profile field', () => {
  it.each([
    { fault: 'degenerate', ok: true },
    { fault: 'wrong-answers', ok: true },
    { fault: 'slow', ok: false },
  ])('fault $fault', ({ fault, ok }) => {
    const json = { name: 'p', model: 'm', source: 's', prefill: { 'tokens-per-s': 1 }, decode: { 'step-ms': 1 }, fault }
    if (ok) expect(parseProfile(json, 'p.json').fault).toBe(fault)
    else expect(() => parseProfile(json, 'p.json')).toThrow(/profile p\.json: fault: /)
  })
})
