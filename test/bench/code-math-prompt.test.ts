/**
 * `prompts: code` and `prompts: math`: generated corpora (Python functions over everyday records; word problems with
 * worked solutions), the same on every build, and prompts drawn from them with the text prompts' guarantees —
 * exactly FIXED_WORDS + n whitespace words, the same first word, unique openings — read by the simulator as the
 * stratum they are, so its drafting profiles accept more of them than of prose.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { FIXED_WORDS } from '../../src/bench/prompts/prompt.js'
import { codeCorpus } from '../../src/bench/prompts/code-corpus.js'
import { mathCorpus } from '../../src/bench/prompts/math-corpus.js'
import { textPrompt } from '../../src/bench/prompts/text-prompt.js'
import { stratumOf } from '../../src/sim/acceptance.js'
import { countWords } from '../../src/sim/tokenizer.js'

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16)

describe.each([
  { kind: 'code' as const, corpus: codeCorpus, sample: /def \w+\(|class \w+:/, sha: 'ba90faa6360db53b' },
  { kind: 'math' as const, corpus: mathCorpus, sample: /Solution: .*\d+ [×+−/] \d+ = \d/, sha: 'cf5e754bb5e266a3' },
])('$kind prompts', ({ kind, corpus, sample, sha }) => {
  it('come from a corpus built the same on every build, of a modest size', () => {
    const c = corpus()
    expect(c.text).toMatch(sample)
    expect(Buffer.byteLength(c.text)).toBeGreaterThan(20_000)
    expect(Buffer.byteLength(c.text)).toBeLessThan(200_000)
    expect(c.passages.every((p) => p.length === 12)).toBe(true)
    // Part of the workload such a cell measured: a change to the templates or the seed shows here first.
    console.log(`${kind} corpus: ${c.passages.length} topics, ${c.starts.length} words, sha256 ${digest(c.text)}`)
    expect(digest(c.text)).toBe(sha)
    expect(textPrompt(7, 300, 0, kind)).toBe(textPrompt(7, 300, 0, kind))
  })

  it('have exactly FIXED_WORDS + n whitespace words for every index, short, long and past the corpus', () => {
    for (const n of [0, 3, 20, 150, 900, 30_000])
      for (const index of [0, 1, 99, 4097, 262_143]) {
        const prompt = textPrompt(index, n, 0, kind)
        expect(countWords(prompt), `${kind} ${index}/${n}`).toBe(FIXED_WORDS + n)
      }
  })

  it('open with the sender and an instruction of their kind, unique per index', () => {
    const heads = Array.from({ length: 500 }, (_, i) => textPrompt(i, 12, 0, kind))
    expect(new Set(heads).size).toBe(500)
    expect(heads.every((h) => h.startsWith('From '))).toBe(true)
    expect(heads.some((h) => h.includes(kind === 'code' ? 'code' : 'problems'))).toBe(true)
  })

  it(`read as ${kind} to the simulator, where prose reads as prose`, () => {
    const long = Array.from({ length: 40 }, (_, i) => textPrompt(i, 400, 0, kind))
    expect(long.filter((p) => stratumOf(p) === kind).length).toBeGreaterThanOrEqual(38)
    const prose = Array.from({ length: 40 }, (_, i) => textPrompt(i, 400))
    expect(prose.filter((p) => stratumOf(p) === 'prose').length).toBe(40)
  })
})
