/**
 * Finds the filler length that makes a prompt exactly `target` tokens as the server counts
 * them. The engine's tokenizer endpoint is used when it has one (cheap), and a real 1-token
 * request confirms it, because `/tokenize` may skip the chat template or the BOS token; without
 * a tokenizer, throwaway 1-token requests and their `usage.prompt_tokens` steer the search.
 * Every loop is bounded; a target that cannot be hit exactly returns the closest length, and
 * the achieved counts of the real requests flag the cell. A count from usage is of the last
 * prompt built with the filler length returned (calibrator.ts counts that prompt again).
 */
import { FIXED_WORDS } from './prompt.js'

export interface PromptCounters {
  /** Tokens of a text by the engine's tokenizer; undefined when the engine has none. */
  tokenize?: (text: string) => Promise<number | undefined>
  /** `usage.prompt_tokens` of a real 1-token request; undefined when the server sends no usage. */
  probe: (text: string) => Promise<number | undefined>
}

export interface Calibration {
  fillerWords: number
  /** Prompt tokens the server should count. */
  promptTokens: number
  /** What the count rests on: a real request, the tokenizer alone, or a guess (no usage, no tokenizer). */
  source: 'usage' | 'tokenize' | 'estimate'
  /** The settled prompt's count by the engine's tokenizer, where the calibrator was asked for it (text-fit.ts). */
  tokenized?: number
}

const MAX_STEPS = 6
const MAX_VERIFY = 3

interface Fit {
  words: number
  tokens: number
}

async function fit(
  start: number,
  goal: number,
  build: (words: number) => string,
  count: (text: string) => Promise<number | undefined>,
): Promise<Fit | undefined> {
  let words = start
  let best: Fit | undefined
  const tried = new Set<number>()
  for (let step = 0; step < MAX_STEPS && !tried.has(words); step++) {
    tried.add(words)
    const tokens = await count(build(words))
    if (tokens === undefined) return best
    if (!best || Math.abs(tokens - goal) < Math.abs(best.tokens - goal)) best = { words, tokens }
    if (tokens === goal) break
    words = Math.max(0, words + goal - tokens)
  }
  return best
}

/** `otherWords`: words the prompt carries besides its own lead, nonce and filler (a shared prefix), for the first guess. */
export async function calibrate(
  target: number,
  build: (fillerWords: number) => string,
  counters: PromptCounters,
  otherWords = 0,
): Promise<Calibration> {
  let start = Math.max(0, target - FIXED_WORDS - otherWords)
  if (counters.tokenize) {
    let offset = 0
    for (let round = 0; round < MAX_VERIFY; round++) {
      const byTokenizer = await fit(start, target - offset, build, counters.tokenize)
      if (!byTokenizer) break
      start = byTokenizer.words
      const real = await counters.probe(build(start))
      if (real === undefined)
        return { fillerWords: start, promptTokens: byTokenizer.tokens + offset, source: 'tokenize' }
      if (real === target) return { fillerWords: start, promptTokens: real, source: 'usage' }
      offset = real - byTokenizer.tokens
    }
  }
  const byUsage = await fit(start, target, build, counters.probe)
  if (!byUsage) return { fillerWords: start, promptTokens: target, source: 'estimate' }
  return { fillerWords: byUsage.words, promptTokens: byUsage.tokens, source: 'usage' }
}
