/**
 * The shared prefix of a `prefix-tokens` scenario: every request of a round starts with the same text (a chat
 * system prompt, a RAG template), then its own unique part, so a prefix cache (vLLM's automatic prefix caching,
 * SGLang's RadixAttention, a llama.cpp slot's cached prompt) serves the prefix once it is warm. The text is
 * the prompt's own vocabulary behind a lead word and a nonce picked from the scenario's id, so two scenarios on
 * one server never share a prefix and one cell never warms another; the rounds of a cell (and its
 * re-measurements) share it, so the cold round warms the cache and the warm rounds hit it.
 *
 * Its length is calibrated like a prompt's (calibrate.ts): the prefix alone, sent as a prompt, costs
 * `prefix-tokens` as the server counts them, BOS and chat-template head included — what a cache can hold.
 */
import { calibrate, type PromptCounters } from './calibrate.js'
import { filler, nonce } from './prompt.js'

const LEAD = 'System'
/** Nonce indices of prefixes: far from every request's own (benchmark requests count from 0). */
const PREFIX_NONCE = 2_000_000_000

/** A 31-bit FNV-1a hash of the scenario id: the prefix's nonce. */
function keyIndex(key: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0
  return PREFIX_NONCE + (h & 0x7fffffff)
}

/** The prefix of scenario `key` with `fillerWords` words after its lead and nonce. */
export function prefixText(key: string, fillerWords: number): string {
  const tail = fillerWords > 0 ? ` ${filler(fillerWords)}` : ''
  return `${LEAD} ${nonce(keyIndex(key))}${tail}`
}

export interface SharedPrefix {
  text: string
  /** Tokens the prefix costs alone, as the server counts them. */
  tokens: number
}

/** The prefix of scenario `key` calibrated to `tokens`. */
export async function sharedPrefix(key: string, tokens: number, counters: PromptCounters): Promise<SharedPrefix> {
  const fit = await calibrate(tokens, (words) => prefixText(key, words), counters)
  return { text: prefixText(key, fit.fillerWords), tokens: fit.promptTokens }
}
