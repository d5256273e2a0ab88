/**
 * Acceptance length of one round, from each engine's own figures. The llama.cpp figures are b10470's, captured with
 * its draft model (`-md tiny-llama-draft-q8_0.gguf --spec-type draft-simple --spec-draft-n-max 8`): two 64-token
 * completions, each `timings.draft_n` 268 and `draft_n_accepted` 25, and `/metrics` then counting 74 drafts, 536
 * draft tokens and 50 accepted.
 */
import { describe, expect, it } from 'vitest'
import type { RequestRecord } from '../../src/core/measurements.js'
import type { RoundServer } from '../../src/core/server-counters.js'
import { llamacpp } from '../../src/engines/llamacpp.js'
import { sglang } from '../../src/engines/sglang.js'
import { vllm } from '../../src/engines/vllm.js'

const server = (deltas: Record<string, number>, means: Record<string, number> = {}): RoundServer => ({
  deltas,
  peaks: means,
  means,
  samples: 1,
})

function request(outputTokens: number, extras?: Record<string, number>, ok = true): RequestRecord {
  return {
    index: 0,
    ok,
    queueMs: 0,
    sentAt: 0,
    ttftMs: 10,
    e2eMs: 100,
    promptTokens: 7,
    outputTokens,
    usageReported: true,
    itlMs: [],
    chunks: outputTokens,
    ...(extras && { extras }),
  }
}

describe('acceptance length of a round', () => {
  it('vLLM: 1 + Δaccepted / Δdrafts, nothing when the round drafted nothing', () => {
    const round = server({ 'vllm:spec_decode_num_drafts_total': 40, 'vllm:spec_decode_num_accepted_tokens_total': 66 })
    expect(vllm.roundAcceptance?.(round, [])).toBeCloseTo(2.65, 10)
    expect(vllm.roundAcceptance?.(server({ 'vllm:spec_decode_num_drafts_total': 0 }), [])).toBeUndefined()
    expect(vllm.roundAcceptance?.(undefined, [])).toBeUndefined()
    // A denormal count of drafts would make it infinite: no figure instead.
    const denormal = server({
      'vllm:spec_decode_num_drafts_total': 5e-324,
      'vllm:spec_decode_num_accepted_tokens_total': 66,
    })
    expect(vllm.roundAcceptance?.(denormal, [])).toBeUndefined()
  })

  it("llama.cpp: the server's counters where it has them, as vLLM's formula", () => {
    const round = server({
      'llamacpp:spec_decode_num_drafts_total': 74,
      'llamacpp:spec_decode_num_accepted_tokens_total': 50,
    })
    const drafted = [
      request(64, { draft_n: 268, draft_n_accepted: 25 }),
      request(64, { draft_n: 268, draft_n_accepted: 25 }),
    ]
    expect(llamacpp.roundAcceptance?.(round, drafted)).toBeCloseTo(1 + 50 / 74, 10)
  })

  it('llama.cpp without counters: Σ(tokens − 1) ÷ Σ steps from the timings, failed requests left out', () => {
    // Each request: 63 tokens after its first, 25 of them accepted drafts, so 38 steps.
    const drafted = [
      request(64, { draft_n: 268, draft_n_accepted: 25 }),
      request(64, { draft_n: 268, draft_n_accepted: 25 }),
      request(64, { draft_n: 268, draft_n_accepted: 60 }, false),
    ]
    expect(llamacpp.roundAcceptance?.(undefined, drafted)).toBeCloseTo(126 / 76, 10)
    // Within one step a request of the counters' 1 + 50 / 74: the timings do not say which steps drafted.
    expect(Math.abs(126 / 76 - (1 + 50 / 74))).toBeLessThan(0.02)
    expect(llamacpp.roundAcceptance?.(undefined, [request(64)])).toBeUndefined()
  })

  it("SGLang: the mean of its acceptance-length gauge over the round's samples", () => {
    expect(sglang.roundAcceptance?.(server({}, { 'sglang:spec_accept_length': 3.4 }), [])).toBe(3.4)
    expect(sglang.roundAcceptance?.(server({}, { 'sglang:spec_accept_length': 0 }), [])).toBeUndefined()
  })
})
