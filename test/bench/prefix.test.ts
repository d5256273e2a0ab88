/** A scenario's shared prefix: one per scenario, the prompt's vocabulary, calibrated to its token count. */
import { describe, expect, it } from 'vitest'
import { prefixText, sharedPrefix } from '../../src/bench/prompts/prefix.js'
import { promptText } from '../../src/bench/prompts/prompt.js'
import { llamacpp } from '../../src/engines/llamacpp.js'

const words = (text: string) => text.split(' ').length

describe('shared prefix', () => {
  it('differs between scenarios from its second word on, and is the same for one scenario', () => {
    expect(prefixText('chat-1k', 10)).toBe(prefixText('chat-1k', 10))
    const a = prefixText('chat-1k', 10).split(' ')
    const b = prefixText('chat-1k@c4', 10).split(' ')
    expect(a[0]).toBe(b[0])
    expect(a.slice(1, 5)).not.toEqual(b.slice(1, 5))
    // Never a request's own opening: those start with another lead word.
    expect(promptText(0, 10).split(' ')[0]).not.toBe(a[0])
  })

  it('is calibrated to its token count as the server counts it (here a tokenizer adding a BOS token)', async () => {
    const counters = {
      tokenize: async (text: string) => words(text) + 1,
      probe: async (text: string) => words(text) + 1,
    }
    const prefix = await sharedPrefix('chat-1k', 900, counters)
    expect(prefix.tokens).toBe(900)
    expect(words(prefix.text) + 1).toBe(900)
  })

  it('turns llama.cpp prompt caching on only for a scenario that shares a prefix', () => {
    expect(llamacpp.transformRequest({}, 'completions')).toMatchObject({ cache_prompt: false })
    expect(llamacpp.transformRequest({}, 'completions', { sharedPrefix: true })).toMatchObject({ cache_prompt: true })
  })
})
