import { describe, expect, it } from 'vitest'
import {
  GREEDY_KEEP_CHARS,
  GREEDY_MAX_PROMPTS,
  GREEDY_PROMPTS,
  benchmarkShapedKey,
  greedyAgreement,
  keepGreedy,
  promptAgreement,
} from '../../src/quality/index.js'

const STORED =
  'The Pacific Ocean covers about a third of the surface of the Earth, and its deepest point lies in the Mariana Trench.'

describe('promptAgreement: shared-prefix fraction over word and punctuation tokens', () => {
  it.each([
    { name: 'identical', current: STORED, fraction: 1, shared: 24, total: 24 },
    {
      name: 'whitespace does not count',
      current: STORED.replace(/ /g, '  ').replace('Earth,', 'Earth ,'),
      fraction: 1,
      shared: 24,
      total: 24,
    },
    {
      name: 'the last token flips',
      current: STORED.replace('Trench.', 'Trench!'),
      fraction: 23 / 24,
      shared: 23,
      total: 24,
    },
    {
      name: 'a late flip, then another continuation',
      current: STORED.replace(
        'its deepest point lies in the Mariana Trench.',
        'it holds more water than all the other oceans together.',
      ),
      fraction: 15 / 26,
      shared: 15,
      total: 26,
    },
    { name: 'the first token flips', current: `A ${STORED.slice(4)}`, fraction: 0, shared: 0, total: 24 },
    { name: 'garbage', current: "'s".repeat(100), fraction: 0, shared: 0, total: 200 },
    { name: 'stopped early', current: 'The Pacific Ocean covers', fraction: 4 / 24, shared: 4, total: 24 },
    { name: 'both empty', current: '', stored: '', fraction: 1, shared: 0, total: 0 },
    { name: 'current empty', current: '', fraction: 0, shared: 0, total: 24 },
  ])('$name → $fraction', ({ current, stored, fraction, shared, total }) => {
    expect(promptAgreement(current, stored ?? STORED)).toMatchObject({ fraction, shared, total })
  })

  it('compares only what a baseline keeps: text past GREEDY_KEEP_CHARS does not count', () => {
    const long = 'word '.repeat(100)
    expect(promptAgreement(long + 'one', long + 'two')).toMatchObject({ fraction: 1 })
    expect(promptAgreement(long, long).total).toBe(Math.ceil(GREEDY_KEEP_CHARS / 5))
  })
})

describe('greedyAgreement', () => {
  const prompts = GREEDY_PROMPTS.slice(0, 4)
  const stored = prompts.map((prompt, i) => ({ prompt, text: `${STORED} (${i})` }))

  it('is the lower of the probe prompts’ and the benchmark-shaped requests’ means: garbage there is not averaged away', () => {
    const all = GREEDY_PROMPTS.map((prompt, i) => ({ prompt, text: `${STORED} (${i})` }))
    const shaped = [0, 1].map((i) => ({ prompt: benchmarkShapedKey(i, 1024), text: `${STORED} [${i}]` }))
    const base = [...shaped, ...all]
    const garbage = [...shaped.map((o) => ({ ...o, text: 'zebra quartz lantern' })), ...all]
    // Over all 14 prompts the mean would be 12/14 = 0.86, above the default 0.8 limit.
    const got = greedyAgreement(garbage, base)!
    expect(got.prompts).toBe(14)
    expect(got.mean).toBe(0)
    expect(got.worst).toMatch(/^"benchmark-shaped #1/)
    expect(greedyAgreement(base, base)).toEqual({ mean: 1, prompts: 14 })
    // A baseline from before benchmark-shaped requests existed: the probe prompts alone.
    expect(greedyAgreement(garbage, all)).toEqual({ mean: 1, prompts: 12 })
  })

  it('is 1 with no worst prompt when every output agrees', () => {
    expect(greedyAgreement(stored, stored)).toEqual({ mean: 1, prompts: 4 })
  })

  it('is the mean over the prompts both have, and names the worst one', () => {
    const current = [
      stored[0],
      { prompt: prompts[1], text: stored[1].text.replace('Trench', 'trench') },
      { prompt: prompts[2], text: "'s".repeat(40) },
      { prompt: 'a prompt the baseline never saw', text: 'x' },
    ]
    const agreement = greedyAgreement(current, stored)!
    expect(agreement.prompts).toBe(3)
    expect(agreement.mean).toBeCloseTo((1 + 22 / 27 + 0) / 3, 10)
    expect(agreement.worst).toBe(
      `"Explain what a hash table is in two sen…" shares 0 of 80 tokens, then baseline "The", now "'"`,
    )
  })

  it('says where one side ended', () => {
    const current = [{ prompt: prompts[0], text: 'The Pacific' }]
    expect(greedyAgreement(current, stored)?.worst).toBe(
      `"Write one sentence about the ocean." shares 2 of 27 tokens, then baseline "Ocean", now ends`,
    )
  })

  it('is undefined without a shared prompt', () => {
    expect(greedyAgreement([], stored)).toBeUndefined()
    expect(greedyAgreement(stored, [])).toBeUndefined()
  })
})

describe('keepGreedy', () => {
  it(`keeps at most ${GREEDY_MAX_PROMPTS} prompts × ${GREEDY_KEEP_CHARS} characters`, () => {
    const outputs = Array.from({ length: 20 }, (_, i) => ({ prompt: `p${i}`, text: '🙂'.repeat(300) }))
    const kept = keepGreedy(outputs)
    expect(kept).toHaveLength(GREEDY_MAX_PROMPTS)
    expect(kept.every((o) => [...o.text].length === GREEDY_KEEP_CHARS)).toBe(true)
    expect(GREEDY_PROMPTS.length).toBeLessThanOrEqual(GREEDY_MAX_PROMPTS)
    expect(new Set(GREEDY_PROMPTS).size).toBe(GREEDY_PROMPTS.length)
  })
})
