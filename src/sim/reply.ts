/**
 * What a simulated reply says, token by token. The simulator decodes "greedily": the text is a
 * function of the prompt alone, so the same prompt always gets the same reply. A probe
 * question (quality/probe.ts) gets its answer first, `The answer is 5198.`; every other token
 * is a word drawn from a seed hashed from the prompt. A request that honours end-of-sequence
 * (`ignore_eos: false`) stops after the answer, or after a seeded 8–16 words for any other
 * prompt, with `finish_reason: "stop"`; one that ignores it runs to `max_tokens`. Faults change
 * the text, never the number of tokens or their timing, except that a degenerate engine never
 * reaches its end of sequence.
 */
import { solveQuestion } from '../quality/probe.js'
import type { SimFault } from './profile.js'
import type { GenerateRequest } from './parse-request.js'
import { generatedWord } from './tokenizer.js'

/** A probe question is short and ends its prompt: only this many trailing characters are searched. */
const QUESTION_WINDOW = 2048
/** Tokens of `The answer is N.`, after which a reply that honours end-of-sequence stops. */
const ANSWER_TOKENS = 4
/** The seed hashes this many leading characters and the length; benchmark prompts differ in their first words. */
const SEEDED_CHARS = 4096
/** What a degenerate engine streams for every token. */
export const DEGENERATE_TOKEN = "'s"

/** FNV-1a over the prompt's first SEEDED_CHARS characters, then its length. */
export function promptSeed(text: string): number {
  let hash = 0x811c9dc5
  const end = Math.min(text.length, SEEDED_CHARS)
  for (let i = 0; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return Math.imul(hash ^ text.length, 0x01000193) >>> 0
}

/** How far off a `wrong-answers` fault is: 1–9, fixed per prompt. */
export function wrongBy(seed: number): number {
  return 1 + (seed % 9)
}

/** Shortest and longest reply to a prompt that is not a probe question, when end-of-sequence is honoured. */
const EOS_MIN = 8
const EOS_MAX = 16

/** How many tokens the reply has, and why it ends. */
export interface ReplyLength {
  tokens: number
  finish: 'stop' | 'length'
}

/** The reply's length: `max_tokens`, or fewer when the request honours end-of-sequence and the reply reaches it first. */
export function replyLength(request: GenerateRequest, fault: SimFault | undefined): ReplyLength {
  const full: ReplyLength = { tokens: request.maxTokens, finish: 'length' }
  if (request.ignoreEos || fault === 'degenerate') return full
  const answered = solveQuestion(request.text.slice(-QUESTION_WINDOW)) !== undefined
  const eos = answered ? ANSWER_TOKENS : EOS_MIN + (promptSeed(request.text) % (EOS_MAX - EOS_MIN + 1))
  return eos <= request.maxTokens ? { tokens: eos, finish: 'stop' } : full
}

/** Under `benchmark-garbage`, what a request that ignores end-of-sequence draws its words from instead. */
const GARBAGE_SEED = 0x5bd1e995

/**
 * The reply to `prompt` as a function of token index: one space-led word per token, or DEGENERATE_TOKEN under
 * that fault; under `benchmark-garbage` a request that ignores end-of-sequence gets words of another seed.
 */
export function replyTokens(prompt: string, fault: SimFault | undefined, ignoreEos = false): (index: number) => string {
  if (fault === 'degenerate') return () => DEGENERATE_TOKEN
  const own = promptSeed(prompt)
  // Kept unsigned, as promptSeed gives it (`^` would make it a signed 32-bit integer).
  const seed = fault === 'benchmark-garbage' && ignoreEos ? (own ^ GARBAGE_SEED) >>> 0 : own
  const answer = solveQuestion(prompt.slice(-QUESTION_WINDOW))
  if (answer === undefined) return (index) => generatedWord(seed, index)
  const given = fault === 'wrong-answers' ? answer + wrongBy(seed) : answer
  const lead = [' The', ' answer', ' is', ` ${given}.`]
  // ANSWER_TOKENS is this lead's length.
  return (index) => lead[index] ?? generatedWord(seed, index)
}
