import { describe, expect, it } from 'vitest'
import {
  chatIds,
  chatTokens,
  countWords,
  generatedWord,
  promptIds,
  promptTokens,
  words,
} from '../../src/sim/tokenizer.js'

describe('word tokenizer', () => {
  it.each([
    '',
    '   ',
    'one',
    ' lead and trail ',
    'tabs\tand\nnewlines\r\n',
    'no\u00a0break\u2003em\u3000ideographic\ufeffbom',
    'ünïcödé wörds 字 字',
  ])('countWords agrees with words() on %j', (text) => {
    expect(countWords(text)).toBe(words(text).length)
  })

  it.each([
    { prompt: 'a b c', count: 3 },
    { prompt: ['a b'], count: 2 },
    { prompt: [1, 2, 3, 4], count: 4 },
    { prompt: ['a', 'b'], count: undefined },
    { prompt: 42, count: undefined },
  ])('completions prompt $prompt → $count tokens, the same through the id path', ({ prompt, count }) => {
    expect(promptTokens(prompt)).toBe(count)
    expect(promptIds(prompt)?.length).toBe(count)
  })

  it.each([
    { messages: [{ role: 'user', content: 'a b' }], count: 2 + 4 + 3 },
    {
      messages: [
        { role: 'system', content: null },
        { role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url' }] },
      ],
      count: 1 + 2 * 4 + 3,
    },
    { messages: [], count: undefined },
    { messages: [{ role: 'user', content: 5 }], count: undefined },
  ])('chat messages → $count tokens, the same through the id path', ({ messages, count }) => {
    expect(chatTokens(messages)).toBe(count)
    expect(chatIds(messages)?.length).toBe(count)
  })

  it('generated tokens are single space-led words, so generated text re-counts to completion_tokens', () => {
    const text = Array.from({ length: 200 }, (_, i) => generatedWord(3, i)).join('')
    expect(countWords(text)).toBe(200)
    expect(text.startsWith(' ')).toBe(true)
  })
})
