/**
 * Speculative decoding's acceptance length of one steady round: tokens a verify step yields, the bonus token
 * included. Decode tok/s is this length ÷ the verify step's time, so with it the gate splits a change of decode
 * into the drafter's part (acceptance) and the kernels' part (step time).
 *
 * - From counter deltas over the round, vLLM's formula (`vllm/benchmarks/serve.py`): 1 + Δaccepted / Δdrafts,
 *   where a draft is one verify step of one request. llama.cpp's `/metrics` counts the same under its own names.
 * - From the requests' own figures where the engine reports drafts per request and has no counters (llama.cpp's
 *   `timings.draft_n_accepted`): a decode step yields one sampled token plus the drafts it accepted, so a request's
 *   steps after its first token are (tokens − 1) − accepted, and the length is Σ(tokens − 1) ÷ Σ steps.
 * - SGLang exposes the length itself as a gauge (`sglang:spec_accept_length`): its mean over the round's samples.
 */
import type { RequestRecord } from '../core/measurements.js'
import type { RoundServer } from '../core/server-counters.js'

/** The counters of drafts (verify steps) and accepted draft tokens, under one engine's names. */
export interface DraftCounters {
  drafts: string
  accepted: string
}

export const LLAMACPP_DRAFTS: DraftCounters = {
  drafts: 'llamacpp:spec_decode_num_drafts_total',
  accepted: 'llamacpp:spec_decode_num_accepted_tokens_total',
}

/** 1 + Δaccepted / Δdrafts over the round; undefined when the round drafted nothing or the counters are absent. */
export function countedAcceptance(server: RoundServer | undefined, names: DraftCounters): number | undefined {
  const drafts = server?.deltas[names.drafts]
  const accepted = server?.deltas[names.accepted]
  if (drafts === undefined || accepted === undefined || !(drafts > 0)) return undefined
  // A denormal count of drafts makes the quotient overflow: no figure rather than an infinite one.
  const length = 1 + accepted / drafts
  return Number.isFinite(length) ? length : undefined
}

/** Σ(tokens − 1) ÷ Σ steps over the successful requests that report accepted drafts under `accepted`. */
export function requestAcceptance(requests: readonly RequestRecord[], accepted: string): number | undefined {
  let tokens = 0
  let steps = 0
  for (const r of requests) {
    const own = r.extras?.[accepted]
    if (!r.ok || own === undefined || r.outputTokens < 2) continue
    tokens += r.outputTokens - 1
    steps += Math.max(r.outputTokens - 1 - own, 1)
  }
  return steps > 0 && tokens > 0 ? tokens / steps : undefined
}

/** The mean of a gauge that is the acceptance length itself; undefined when it was not sampled or reads 0. */
export function gaugeAcceptance(server: RoundServer | undefined, gauge: string): number | undefined {
  const value = server?.means[gauge]
  return value !== undefined && value >= 1 ? value : undefined
}
