import { describe, expect, it } from 'vitest'
import { appendSample, checkDegenerate, DEGENERATE_SAMPLE_CHARS, tallyDegenerate } from '../../src/quality/index.js'
import { replyTokens } from '../../src/sim/reply.js'
import { DEGENERATE, HEALTHY } from './samples.js'

/** What the simulator streams for a benchmark prompt, 500 tokens of it. */
function simText(prompt: string): string {
  const token = replyTokens(prompt, undefined)
  return Array.from({ length: 500 }, (_, i) => token(i)).join('')
}

describe('checkDegenerate', () => {
  it.each([
    ...HEALTHY,
    { name: 'the simulator, benchmark prompt 0', text: simText('Note the the the the time people year way') },
    { name: 'the simulator, benchmark prompt 1', text: simText('Note of the the the time people year way') },
  ])('healthy: $name', ({ text }) => {
    const check = checkDegenerate(text)
    expect(check.degenerate, check.reason).toBe(false)
  })

  it.each(DEGENERATE)('degenerate: $name ($kind)', ({ text, kind }) => {
    const check = checkDegenerate(text)
    expect(check, check.reason).toMatchObject({ judged: true, degenerate: true, kind })
  })

  it.each([
    { text: "'s".repeat(1024), reason: `repeats "'s" over 100% of 2048 characters`, fragment: "'s" },
    {
      text: `Sure, here is the summary you asked for:${" 's".repeat(600)}`,
      reason: `repeats " 's" over 97.8% of 1840 characters`,
      fragment: " 's",
    },
    {
      text: 'I am sorry, but I cannot continue with this request today. '.repeat(34),
      reason: 'deflates to 3.6% of its size (limit 7%)',
    },
    {
      text: 'the of and '.repeat(6) + 'to a of the and '.repeat(30),
      reason: 'repeats " and to a of the" over 88.8% of 546 characters',
      fragment: ' and to a of the',
    },
    { text: 'short', reason: 'too short to judge (5 characters, needs 64)' },
    { text: HEALTHY[0].text, reason: 'not degenerate' },
  ])('says why: $reason', ({ text, reason, fragment }) => {
    expect(checkDegenerate(text)).toMatchObject({ reason, ...(fragment !== undefined && { fragment }) })
  })

  it(`judges the first ${DEGENERATE_SAMPLE_CHARS} characters only`, () => {
    expect(checkDegenerate(HEALTHY[0].text + '+'.repeat(100_000)).degenerate).toBe(false)
    expect(checkDegenerate('+'.repeat(DEGENERATE_SAMPLE_CHARS) + HEALTHY[0].text).degenerate).toBe(true)
  })
})

describe('appendSample', () => {
  it(`keeps the first ${DEGENERATE_SAMPLE_CHARS} characters of a stream`, () => {
    let sample = ''
    for (let i = 0; i < 1000; i++) sample = appendSample(sample, `${i} `)
    expect(sample).toHaveLength(DEGENERATE_SAMPLE_CHARS)
    expect(sample.startsWith('0 1 2 3 ')).toBe(true)
    expect(appendSample('ab', 'cd')).toBe('abcd')
  })
})

describe('tallyDegenerate', () => {
  it.each([
    { name: 'none sampled', texts: [], want: { judged: 0, degenerate: 0, share: null } },
    {
      name: 'all too short',
      texts: ['The answer is 5198.', 'Paris.'],
      want: { judged: 0, degenerate: 0, share: null },
    },
    {
      name: 'healthy',
      texts: HEALTHY.map((h) => h.text),
      want: { judged: HEALTHY.length - 1, degenerate: 0, share: 0 },
    },
    {
      name: 'half broken, short ones left out',
      texts: [
        HEALTHY[0].text,
        HEALTHY[3].text,
        "'s".repeat(500),
        'I am sorry, but I cannot continue with this request today. '.repeat(34),
        'ok',
      ],
      want: {
        judged: 4,
        degenerate: 2,
        share: 0.5,
        kinds: { repeat: 1, compression: 1, vocabulary: 0 },
        example: "'s",
      },
    },
  ])('$name', ({ texts, want }) => {
    expect(tallyDegenerate(texts.map(checkDegenerate))).toMatchObject(want)
  })
})
