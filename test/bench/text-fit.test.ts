/**
 * Fitting one request's text prompt to the calibrated tokenizer count: one count where the server counts words,
 * exact on subword-like tokenizers that make whole-word cuts jump over the goal, bounded and closest where no
 * prompt can hit it, and the round supply that hands the fitted prompts out.
 */
import { describe, expect, it } from 'vitest'
import type { Calibration } from '../../src/bench/prompts/calibrate.js'
import { FIXED_WORDS } from '../../src/bench/prompts/prompt.js'
import { fitText, MAX_FIT_COUNTS, specText, textSupply } from '../../src/bench/prompts/text-fit.js'
import { textPrompt } from '../../src/bench/prompts/text-prompt.js'
import { countWords } from '../../src/sim/tokenizer.js'

/** SentencePiece-like: BOS, a token per four letters of a word, one per trailing punctuation mark. */
const subword = (text: string) =>
  1 +
  text
    .split(/\s+/)
    .filter(Boolean)
    .reduce((n, w) => {
      const mark = /[.,:;!?]+$/.exec(w)?.[0] ?? ''
      const core = w.length - mark.length
      return n + mark.length + Math.ceil(core / 4)
    }, 0)

/** BPE-like: BOS, and a word longer than six characters costs two tokens. */
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

/** Filler words that make index `at`'s prompt the goal, as a calibration on another index would find them. */
function calibratedStart(count: (text: string) => number, goal: number, at = 999_999): number {
  let words = 0
  while (count(textPrompt(at, words + 1)) <= goal) words++
  return words
}

describe('fitText', () => {
  it('takes one count per request where the tokenizer counts words', async () => {
    for (const i of [0, 1, 2, 1234, 999_999]) {
      const c = counting(countWords)
      const spec = await fitText(i, 200, FIXED_WORDS + 200, c.fn)
      expect(spec).toEqual({ kind: 'text', index: i, fillerWords: 200, variant: 0 })
      expect(c.calls.n).toBe(1)
    }
  })

  it.each([
    ['subword', 128, subword],
    ['subword', 512, subword],
    ['subword', 2048, subword],
    ['bpe', 64, bpe],
    ['bpe', 700, bpe],
    ['bpe', 3000, bpe],
  ] as const)('%s counts, %i tokens: every request exact, in bounded counts', async (name, goal, count) => {
    const start = calibratedStart(count, goal)
    let most = 0
    let total = 0
    const requests = 150
    for (let k = 0; k < requests; k++) {
      const c = counting(count)
      const spec = await fitText(k * 7919 + 11, start, goal, c.fn)
      expect(count(specText(spec)), `index ${k * 7919 + 11}`).toBe(goal)
      expect(spec.index).toBe(k * 7919 + 11)
      most = Math.max(most, c.calls.n)
      total += c.calls.n
    }
    console.log(`${name} ${goal}: ${total / requests} counts per request on average, ${most} at most`)
    expect(most).toBeLessThanOrEqual(MAX_FIT_COUNTS)
  })

  it('gives the closest prompt, within the bound, when no prompt has the count', async () => {
    // BOS and two tokens a word: an even count is out of reach of every cut and every variant.
    const pairs = (text: string) => 2 * countWords(text) + 1
    const c = counting(pairs)
    const spec = await fitText(42, 100, 300, c.fn)
    expect(Math.abs(pairs(specText(spec)) - 300)).toBe(1)
    expect(c.calls.n).toBeLessThanOrEqual(MAX_FIT_COUNTS)
  })

  it('sends the calibrated words unchanged when the tokenizer answers nothing', async () => {
    const spec = await fitText(7, 90, 120, async () => undefined)
    expect(spec).toEqual({ kind: 'text', index: 7, fillerWords: 90, variant: 0 })
  })
})

describe('textSupply', () => {
  const cal = (tokenized?: number): Calibration => ({
    fillerWords: 150,
    promptTokens: 208,
    source: 'usage',
    ...(tokenized !== undefined && { tokenized }),
  })

  it('fits each round before it starts and hands out its prompts in order, each index once', async () => {
    let sequence = 100
    const c = counting(bpe)
    const supply = textSupply(cal(201), 208, () => sequence++, c.fn)
    const sent: string[] = []
    for (let round = 0; round < 3; round++) {
      await supply.prepare(5)
      const before = c.calls.n
      for (let i = 0; i < 5; i++) sent.push(supply.next())
      expect(c.calls.n, 'no count while the round runs').toBe(before)
    }
    expect(sent.map(bpe)).toEqual(Array(15).fill(201))
    expect(supply.calibration).toEqual(cal(201))
    expect(new Set(sent.map((t) => t.split(' ').slice(0, FIXED_WORDS).join(' '))).size).toBe(15)
    expect(sequence).toBe(115)
  })

  it('without a tokenizer count sends the calibrated words, which a word-counting server counts alike', async () => {
    let sequence = 0
    for (const supply of [
      textSupply(cal(), 208, () => sequence++, counting(bpe).fn),
      textSupply(cal(201), 208, () => sequence++),
    ]) {
      expect(supply.calibration).toEqual(cal(supply.calibration.tokenized))
      await supply.prepare(4)
      const prompts = Array.from({ length: 4 }, () => supply.next())
      expect(prompts.map(countWords)).toEqual(Array(4).fill(FIXED_WORDS + 150))
    }
  })

  it('fits to the input length less the server-to-tokenizer difference the settled prompt showed', async () => {
    // The settled prompt: 199 by the tokenizer, 205 on the server (a template of 6), 3 short of the 208 asked.
    const settled: Calibration = { fillerWords: 150, promptTokens: 205, source: 'usage', tokenized: 199 }
    let sequence = 0
    const supply = textSupply(settled, 208, () => sequence++, counting(bpe).fn)
    expect(supply.calibration).toEqual({ ...settled, promptTokens: 208 })
    await supply.prepare(6)
    expect(Array.from({ length: 6 }, () => bpe(supply.next()))).toEqual(Array(6).fill(202))
  })

  it('a request past the prepared ones still gets a fresh index', async () => {
    let sequence = 0
    const supply = textSupply(cal(), 208, () => sequence++)
    await supply.prepare(1)
    expect(supply.next()).toBe(textPrompt(0, 150))
    expect(supply.next()).toBe(textPrompt(1, 150))
  })
})
