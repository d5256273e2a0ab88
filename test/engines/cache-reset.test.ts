/**
 * Each engine's prefix-cache reset, against the answers its server gives (engines/cache-reset.ts): 2xx is done; a
 * 404 or 405 is an endpoint the engine does not serve (vLLM outside dev mode); any other status is named with the
 * first words of the answer; llama.cpp erases every slot `/props` counts, and its 501 without `--slot-save-path`
 * is the reason given.
 */
import { describe, expect, it } from 'vitest'
import { answerText, eraseSlots, resetOutcome } from '../../src/engines/cache-reset.js'
import { llamacpp } from '../../src/engines/llamacpp.js'
import { sglang } from '../../src/engines/sglang.js'
import { sim } from '../../src/engines/sim.js'
import { vllm } from '../../src/engines/vllm.js'
import { openai } from '../../src/engines/openai.js'
import { trtllm } from '../../src/engines/trtllm.js'
import type { HttpPorts, ProbeAnswer } from '../../src/engines/types.js'

const BASE = 'http://127.0.0.1:8000'

/** HttpPorts answering by path, recording each POST. */
function ports(answers: Record<string, ProbeAnswer>): HttpPorts & { posts: string[] } {
  const posts: string[] = []
  const answer = (url: string) => answers[url.slice(BASE.length)] ?? { status: 404, body: '{"detail":"Not Found"}' }
  return {
    posts,
    get: async (url) => answer(url),
    post: async (url) => {
      posts.push(url.slice(BASE.length))
      return answer(url)
    },
  }
}

describe('resetOutcome', () => {
  it.each([
    [
      { status: 200, body: '' },
      { reset: true, via: 'POST /x' },
    ],
    [
      { status: 404, body: '{"detail":"Not Found"}' },
      { reset: false, reason: 'vllm offers no reset here: POST /x answered 404 (dev mode): Not Found' },
    ],
    [
      { status: 409, body: '{"detail":"Prefix cache reset failed."}' },
      { reset: false, reason: 'vllm answered 409 to POST /x: Prefix cache reset failed.' },
    ],
    [
      { status: 0, body: 'connection refused' },
      { reset: false, reason: 'vllm: no answer to POST /x (connection refused)' },
    ],
  ])('%j → %j', (answer, outcome) => {
    expect(resetOutcome('vllm', 'POST /x', answer, 'dev mode')).toEqual(outcome)
  })

  it('keeps an answer to one line of at most 200 characters', () => {
    expect(answerText(`line one\nline two ${'x'.repeat(400)}`)).toHaveLength(201)
    expect(answerText('{"error":{"code":501,"message":"no slots"}}')).toBe('no slots')
  })
})

describe('adapters', () => {
  it('vLLM and the simulator POST /reset_prefix_cache; vLLM outside dev mode says how to serve it', async () => {
    const done = ports({ '/reset_prefix_cache': { status: 200, body: '' } })
    expect(await vllm.resetPrefixCache!(done, BASE)).toEqual({ reset: true, via: 'POST /reset_prefix_cache' })
    expect(await sim.resetPrefixCache!(done, BASE)).toEqual({ reset: true, via: 'POST /reset_prefix_cache' })
    expect(done.posts).toEqual(['/reset_prefix_cache', '/reset_prefix_cache'])
    const outcome = await vllm.resetPrefixCache!(ports({}), BASE)
    expect(outcome.reset).toBe(false)
    expect(outcome.reason).toMatch(/^vllm offers no reset here: .*404 \(vLLM serves it with VLLM_SERVER_DEV_MODE=1\)/)
  })

  it('SGLang POSTs /flush_cache and names the 400 it answers while requests run', async () => {
    const busy = ports({ '/flush_cache': { status: 400, body: 'Flush cache failed.\n' } })
    expect(await sglang.resetPrefixCache!(busy, BASE)).toEqual({
      reset: false,
      reason: 'sglang answered 400 to POST /flush_cache: Flush cache failed.',
    })
  })

  it('llama.cpp erases each slot /props counts', async () => {
    const http = ports({
      '/props': { status: 200, body: '{"total_slots":3}' },
      ...Object.fromEntries([0, 1, 2].map((i) => [`/slots/${i}?action=erase`, { status: 200, body: '{}' }])),
    })
    expect(await llamacpp.resetPrefixCache!(http, BASE)).toEqual({
      reset: true,
      via: 'POST /slots/{0…2}?action=erase',
    })
    expect(http.posts.toSorted()).toEqual(['/slots/0?action=erase', '/slots/1?action=erase', '/slots/2?action=erase'])
  })

  it("llama.cpp without --slot-save-path: the server's 501 is the reason", async () => {
    const refusal = {
      status: 501,
      body: '{"error":{"code":501,"message":"This server does not support slots action. Start it with `--slot-save-path`","type":"not_supported_error"}}',
    }
    const http = ports({ '/props': { status: 200, body: '{"total_slots":1}' }, '/slots/0?action=erase': refusal })
    expect(await eraseSlots(http, BASE)).toEqual({
      reset: false,
      reason:
        'llamacpp answered 501 to POST /slots/0?action=erase: This server does not support slots action. Start it with `--slot-save-path`',
    })
    expect((await eraseSlots(ports({}), BASE)).reason).toBe(
      'llamacpp: /props gave no total_slots, so no slot was erased',
    )
  })

  it('engines without a reset endpoint have no hook', () => {
    expect(openai.resetPrefixCache).toBeUndefined()
    expect(trtllm.resetPrefixCache).toBeUndefined()
  })
})
