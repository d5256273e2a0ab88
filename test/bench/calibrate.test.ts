import { describe, expect, it } from 'vitest'
import { calibrate } from '../../src/bench/prompts/calibrate.js'
import { FIXED_WORDS, nonce, promptText } from '../../src/bench/prompts/prompt.js'

const words = (text: string) => text.split(/\s+/).filter(Boolean).length
let index = 0
const build = (filler: number) => promptText(index++, filler)

/** A BPE-like count: a BOS token, and every word longer than six letters costs two tokens. */
const bpe = (text: string) =>
  1 +
  text
    .split(/\s+/)
    .filter(Boolean)
    .reduce((n, w) => n + (w.length > 6 ? 2 : 1), 0)

function counting(count: (text: string) => number | undefined) {
  const calls = { n: 0 }
  return { calls, fn: async (text: string) => (calls.n++, count(text)) }
}

describe('prompt text', () => {
  it('has a unique nonce per request index and a constant word count', () => {
    const nonces = new Set(Array.from({ length: 5000 }, (_, i) => nonce(i)))
    expect(nonces.size).toBe(5000)
    expect(new Set(Array.from({ length: 300 }, (_, i) => words(promptText(i * 7919, 50)))).size).toBe(1)
    expect(words(promptText(12345, 50))).toBe(FIXED_WORDS + 50)
  })
})

describe('calibrate', () => {
  it('whitespace tokenizer plus a chat template, from usage alone: exact in two probes', async () => {
    const probe = counting((t) => words(t) + 7)
    const c = await calibrate(1024, build, { probe: probe.fn })
    expect(c).toEqual({ fillerWords: 1024 - FIXED_WORDS - 7, promptTokens: 1024, source: 'usage' })
    expect(probe.calls.n).toBe(2)
  })

  it('a tokenizer blind to the template: one offset learned from a real request', async () => {
    const tokenize = counting((t) => words(t))
    const probe = counting((t) => words(t) + 9)
    const c = await calibrate(4096, build, { tokenize: tokenize.fn, probe: probe.fn })
    expect(c).toMatchObject({ promptTokens: 4096, source: 'usage' })
    expect(words(build(c.fillerWords)) + 9).toBe(4096)
    expect(probe.calls.n).toBe(2)
  })

  it('a tokenizer that agrees with the server needs a single confirming request', async () => {
    const probe = counting(bpe)
    const c = await calibrate(700, build, { tokenize: async (t) => bpe(t), probe: probe.fn })
    expect(c.promptTokens).toBe(700)
    expect(probe.calls.n).toBe(1)
  })

  // Brute force over every filler length says whether the target is reachable at all.
  it.each(Array.from({ length: 25 }, (_, i) => 200 + i))(
    'BPE-like counts, target %i: exact when reachable, else off by one',
    async (target) => {
      const probe = counting(bpe)
      const c = await calibrate(target, build, { probe: probe.fn })
      const reachable = Array.from({ length: target }, (_, w) => bpe(build(w))).includes(target)
      if (reachable) expect(c.promptTokens).toBe(target)
      else expect(Math.abs(c.promptTokens - target)).toBe(1)
      expect(bpe(build(c.fillerWords))).toBe(c.promptTokens)
      expect(probe.calls.n).toBeLessThanOrEqual(6)
    },
  )

  it('a target below the fixed cost gives the shortest prompt, in bounded probes', async () => {
    const probe = counting((t) => words(t) + 20)
    const c = await calibrate(8, build, { probe: probe.fn })
    expect(c).toEqual({ fillerWords: 0, promptTokens: FIXED_WORDS + 20, source: 'usage' })
    expect(probe.calls.n).toBeLessThanOrEqual(2)
  })

  it('falls back to requests when the tokenizer answers nothing', async () => {
    const probe = counting((t) => words(t))
    const c = await calibrate(128, build, { tokenize: async () => undefined, probe: probe.fn })
    expect(c).toMatchObject({ promptTokens: 128, source: 'usage' })
  })

  it('with neither usage nor a tokenizer, it says the length is an estimate', async () => {
    const c = await calibrate(128, build, { probe: async () => undefined })
    expect(c).toEqual({ fillerWords: 128 - FIXED_WORDS, promptTokens: 128, source: 'estimate' })
  })
})
