/**
 * What a simulated reply says, token by token. The simulator decodes "greedily": the text is a
 * function of the prompt alone, so the same prompt always gets the same reply. A probe
 * question (quality/probe.ts) gets its answer first, `The answer is 5198.`; every other token
 * is a word drawn from a seed hashed from the prompt. Faults change the text, never the
 * number of tokens or their timing.
 */
import { solveQuestion } from '../quality/probe.js'
import type { SimFault } from './profile.js'
import { generatedWord } from './tokenizer.js'

/** A probe question is short and ends its prompt: only this many trailing characters are searched. */
const QUESTION_WINDOW = 2048
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

/** The reply to `prompt` as a function of token index: one space-led word per token, or DEGENERATE_TOKEN under that fault. */
export function replyTokens(prompt: string, fault: SimFault | undefined): (index: number) => string {
  if (fault === 'degenerate') return () => DEGENERATE_TOKEN
  const seed = promptSeed(prompt)
  const answer = solveQuestion(prompt.slice(-QUESTION_WINDOW))
  if (answer === undefined) return (index) => generatedWord(seed, index)
  const given = fault === 'wrong-answers' ? answer + wrongBy(seed) : answer
  const lead = [' The', ' answer', ' is', ` ${given}.`]
  return (index) => lead[index] ?? generatedWord(seed, index)
}
