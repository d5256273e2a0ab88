/**
 * `prompts: text`: the generated corpus and the prompts drawn from it. Deterministic, an instruction followed by a
 * passage, exactly FIXED_WORDS + n whitespace words for every index, starting with the same word and ending
 * with a word's letters, and unique from the second word on across every index a client hands out (requests of
 * every round and calibration probes alike).
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { FIXED_WORDS, promptText } from '../../src/bench/prompts/prompt.js'
import {
  buildCorpus,
  corpusWords,
  PASSAGES_PER_TOPIC,
  textCorpus,
  TOPICS,
} from '../../src/bench/prompts/text-corpus.js'
import { OPENINGS, textPrompt } from '../../src/bench/prompts/text-prompt.js'
import { countWords } from '../../src/sim/tokenizer.js'

const firstWords = (text: string, n: number) => text.split(/\s+/).slice(0, n).join(' ')

describe('text corpus', () => {
  it('is generated, the same on every build, of a modest size, on many everyday topics', () => {
    const corpus = textCorpus()
    expect(buildCorpus().text).toBe(corpus.text)
    // The corpus is part of the workload a `prompts: text` baseline measured: a change to the templates or the
    // seed changes what such cells measure, so it shows here first.
    expect(createHash('sha256').update(corpus.text).digest('hex').slice(0, 16)).toBe('1a42caa55fe3a58c')
    const bytes = Buffer.byteLength(corpus.text)
    console.log(
      `text corpus: ${TOPICS.length} topics, ${corpus.passages.flat().length} passages, ${corpus.starts.length} words, ${bytes} bytes`,
    )
    expect(bytes).toBeLessThan(200_000)
    expect(TOPICS.length).toBeGreaterThanOrEqual(10)
    for (const name of ['cooking', 'travel', 'history', 'programming', 'gardening', 'health', 'science', 'music'])
      expect(TOPICS.map((t) => t.name)).toContain(name)
    expect(corpus.passages.every((p) => p.length === PASSAGES_PER_TOPIC)).toBe(true)
    expect(countWords(corpus.text)).toBe(corpus.starts.length)
  })

  it('has no unfilled slot, no doubled space, and whole sentences that start with a capital', () => {
    const { text } = textCorpus()
    expect(text).not.toMatch(/[{}]/)
    expect(text).not.toMatch(/ {2}|\n{3}/)
    for (const passage of text.split('\n\n')) {
      expect(passage).toMatch(/^[A-Z].*[.?!]$/)
      for (const sentence of passage.split(/(?<=[.?!]) /)) expect(sentence).toMatch(/^[A-Z0-9]/)
    }
  })

  it('names a missing word list', () => {
    const broken = { ...TOPICS[0], sentences: ['A {nothing} here.'] }
    expect(() => buildCorpus([broken])).toThrow('text corpus: topic cooking has no word list "nothing"')
  })

  it('reads on past its end from its start', () => {
    const c = textCorpus()
    const total = c.starts.length
    const wrapped = corpusWords(c, total - 3, 2 * total + 10)
    expect(countWords(wrapped)).toBe(2 * total + 10)
    expect(firstWords(wrapped, 5)).toBe(firstWords(c.text.slice(c.starts[total - 3]) + ' ' + c.text, 5))
  })
})

describe('text prompts', () => {
  it('are the same for the same index and length', () => {
    for (const i of [0, 1, 77, 123_456, 9_999_999]) expect(textPrompt(i, 300)).toBe(textPrompt(i, 300))
  })

  it('have exactly FIXED_WORDS + n whitespace words for every index, short, long and past the corpus', () => {
    const long = textCorpus().starts.length + 500
    for (const n of [0, 1, 3, 12, 20, 40, 119, 500, 4_000, long]) {
      for (const i of [0, 5, 64, 4_097, 262_145, OPENINGS + 3, 987_654_321]) {
        expect(countWords(textPrompt(i, n)), `index ${i}, ${n} words`).toBe(FIXED_WORDS + n)
        expect(countWords(textPrompt(i, n, 2)), `index ${i}, ${n} words, variant 2`).toBe(FIXED_WORDS + n)
      }
    }
  })

  it('read as a sender, an instruction, then a passage', () => {
    for (const i of [0, 1, 2, 3, 500, 77_777]) {
      const text = textPrompt(i, 200)
      expect(text).toMatch(/^From [A-Z][a-z]+ [A-Z][a-z]+ in [A-Z][a-z]+: please [^\n]+[.?]\n\n[A-Z]/)
    }
    const tasks = new Set(Array.from({ length: 64 }, (_, i) => textPrompt(i, 200).split(' ').slice(6, 9).join(' ')))
    expect(tasks.size).toBeGreaterThanOrEqual(8)
  })

  it('start with the same word and end with the letters of a word, wherever the cut falls', () => {
    // Cuts after a sentence, a comma, the instruction and the opening lose their punctuation; others end as cut.
    expect(textPrompt(3, 399)).toMatch(/ unusually tired$/)
    expect(textPrompt(3, 398)).toMatch(/ seems unusually$/)
    for (let n = 0; n < 600; n += 7)
      for (const i of [3, 4_242, OPENINGS + 9]) {
        const text = textPrompt(i, n, n % 3)
        expect(text.startsWith('From ')).toBe(true)
        expect(text, `index ${i}, ${n} words`).toMatch(/[A-Za-z0-9]$/)
      }
    expect(textPrompt(5, 0)).toMatch(/^From \S+ \S+ in [A-Z][a-z]+$/)
  })

  it('open with FIXED_WORDS words of their own for every index below OPENINGS', () => {
    // The second to fourth words are the index's three low digits: every combination of them once.
    expect(OPENINGS).toBe(64 ** 3)
    const openings = new Set(Array.from({ length: OPENINGS }, (_, i) => firstWords(textPrompt(i, 0), FIXED_WORDS)))
    expect(openings.size).toBe(OPENINGS)
    // Consecutive indices differ from the second word on.
    expect(new Set(Array.from({ length: 64 }, (_, i) => firstWords(textPrompt(i, 0), 2))).size).toBe(64)
  })

  it('past OPENINGS indices, differ in the instruction that follows a repeated opening', () => {
    const repeats = TOPICS.length * 8
    for (const r of [0, 1, 999, OPENINGS - 1]) {
      const heads = Array.from({ length: repeats }, (_, q) => textPrompt(r + q * OPENINGS, 60).split('\n\n')[0])
      expect(new Set(heads.map((h) => firstWords(h, FIXED_WORDS))).size).toBe(1)
      expect(new Set(heads).size).toBe(repeats)
    }
  })

  it('leave the word-list prompt as it was', () => {
    expect(promptText(0, 3)).toBe('Note the the the the time people year')
    expect(promptText(64 * 64 + 65, 2)).toBe('Note of of of the time people')
    expect(countWords(promptText(123, 40))).toBe(FIXED_WORDS + 40)
  })
})
