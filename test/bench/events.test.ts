import { describe, expect, it } from 'vitest'
import { inspectEvent } from '../../src/bench/stream/events.js'
import { StreamTally } from '../../src/bench/stream/tally.js'

const chat = (delta: Record<string, unknown>) => ({ choices: [{ index: 0, delta, finish_reason: null }] })

describe('inspectEvent: what counts as a token (SPEC §5, engines.md pitfall 1)', () => {
  it.each([
    ['completions text', { choices: [{ index: 0, text: ' hi' }] }, true],
    ['completions empty text', { choices: [{ index: 0, text: '' }] }, false],
    ['chat content', chat({ content: 'hi' }), true],
    ['chat reasoning_content', chat({ reasoning_content: 'think' }), true],
    ['chat reasoning (vLLM alias)', chat({ reasoning: 'think' }), true],
    ['chat tool_calls', chat({ tool_calls: [{ index: 0, function: { arguments: '{' } }] }), true],
    ['role-only chunk, content ""', chat({ role: 'assistant', content: '' }), false],
    ['role-only chunk, content null (llama.cpp)', chat({ role: 'assistant', content: null }), false],
    ['SGLang nulls everywhere', chat({ role: null, content: null, reasoning_content: null, tool_calls: null }), false],
    ['empty tool_calls', chat({ tool_calls: [] }), false],
    ['finish chunk with delta {}', { choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }, false],
    ['usage-only chunk', { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }, false],
    [
      'second choice carries the token',
      {
        choices: [
          { index: 0, delta: {} },
          { index: 1, delta: { content: ',' } },
        ],
      },
      true,
    ],
  ])('%s → token %s', (_name, json, token) => {
    expect(inspectEvent(json).token).toBe(token)
  })

  it.each([
    ['usage null', { choices: [], usage: null }, undefined],
    [
      'usage on a chunk with choices',
      { choices: [{ text: '!' }], usage: { prompt_tokens: 7, completion_tokens: 4 } },
      { promptTokens: 7, completionTokens: 4 },
    ],
    [
      'usage-only',
      { choices: [], usage: { prompt_tokens: 12, completion_tokens: 128, total_tokens: 140 } },
      { promptTokens: 12, completionTokens: 128 },
    ],
  ])('reads %s', (_name, json, usage) => {
    expect(inspectEvent(json).usage).toEqual(usage)
  })

  it.each([
    ['vLLM error object', { error: { message: 'engine dead', type: 'InternalServerError', code: 500 } }, 'engine dead'],
    ['plain string error', { error: 'boom' }, 'boom'],
    ['object: "error" body', { object: 'error', message: 'bad request', code: 400 }, 'bad request'],
  ])('sees the in-band %s', (_name, json, message) => {
    expect(inspectEvent(json).error).toBe(message)
  })
})

describe('StreamTally', () => {
  const ev = (json: unknown) => JSON.stringify(json)

  it('stamps TTFT on the first token, e2e on the last token, and gaps per chunk', () => {
    const t = new StreamTally()
    t.add(ev(chat({ role: 'assistant', content: '' })), undefined, 5)
    t.add(ev(chat({ content: 'a' })), undefined, 100)
    t.add(ev(chat({ content: 'bcd' })), undefined, 125)
    t.add(ev(chat({ content: 'e' })), undefined, 175)
    t.add(ev({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }), undefined, 180)
    t.add(ev({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 5 } }), undefined, 190)
    t.add('[DONE]', undefined, 200)
    expect([t.firstEventAt, t.firstTokenAt, t.lastTokenAt, t.ttftEvent]).toEqual([5, 100, 175, 1])
    expect(t.itl).toEqual([25, 50])
    expect([t.chunks, t.promptTokens, t.completionTokens, t.done]).toEqual([3, 9, 5, true])
  })

  it('keeps the latest cumulative usage when every chunk carries one', () => {
    const t = new StreamTally()
    for (let i = 1; i <= 4; i++)
      t.add(ev({ choices: [{ text: 'x' }], usage: { prompt_tokens: 20, completion_tokens: i } }), undefined, i)
    expect([t.promptTokens, t.completionTokens]).toEqual([20, 4])
  })

  it("merges what the engine's reader takes from each event, a later value replacing an earlier one", () => {
    const seen: Record<string, unknown>[] = []
    const t = new StreamTally((event) => {
      seen.push(event)
      return typeof event.n === 'number' ? { n: event.n, [`at${event.n}`]: 1 } : undefined
    })
    t.add(ev({ choices: [{ text: 'a' }], n: 1 }), undefined, 1)
    t.add(ev({ choices: [{ text: 'b' }] }), undefined, 2)
    t.add(ev({ choices: [], n: 2 }), undefined, 3)
    t.add('[DONE]', undefined, 4)
    expect(t.extras).toEqual({ n: 2, at1: 1, at2: 1 })
    expect(seen.map((e) => e.n)).toEqual([1, undefined, 2])
  })

  it('hands the reader neither error events nor non-object JSON, and keeps no extras when it finds nothing', () => {
    const seen: unknown[] = []
    const t = new StreamTally((event) => void seen.push(event))
    t.add(ev([1, 2]), undefined, 1)
    t.add(ev({ choices: [{ text: 'a' }] }), undefined, 2)
    expect(t.add(ev({ error: { message: 'oops' } }), undefined, 3)?.kind).toBe('stream-error')
    expect(seen).toEqual([{ choices: [{ text: 'a' }] }])
    expect(t.extras).toBeUndefined()
    const plain = new StreamTally()
    plain.add(ev({ choices: [{ text: 'a' }], timings: { draft_n: 3 } }), undefined, 1)
    expect(plain.extras).toBeUndefined()
  })

  it.each([
    ['malformed JSON', 'data-is-not-json {', undefined, 'malformed', 'malformed event: data-is-not-json {'],
    ['data: {"error": …}', ev({ error: { message: 'oops' } }), undefined, 'stream-error', 'stream error: oops'],
    ['event: error', ev({ message: 'overloaded' }), 'error', 'stream-error', 'stream error: overloaded'],
    ['event: error with text', 'overloaded', 'error', 'stream-error', 'stream error: overloaded'],
  ])('turns %s into a request error', (_name, data, type, kind, message) => {
    const error = new StreamTally().add(data, type, 1)
    expect(error?.kind).toBe(kind)
    expect(error?.message).toBe(message)
  })
})
