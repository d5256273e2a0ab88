/**
 * Text prompts of the requested length, one request at a time. The calibration (calibrator.ts) settles on one
 * prompt, as close to the length as whole words get, that the server counted, and counts it with the engine's
 * tokenizer too (`Calibration.tokenized`); the server's count differs from the tokenizer's by what the tokenizer
 * does not see (a chat template, BOS), the same for every prompt that starts and ends alike (text-prompt.ts), so
 * a request whose prompt the tokenizer counts as the length less that difference is the requested length on the
 * server. Each request's words are fitted to that count before its round starts, outside the round's timing,
 * with `/tokenize` alone: a real request would leave the prompt in the server's prefix cache for the measured one.
 *
 * The fit moves the cut by whole words, by the shortfall in tokens over the prompt's tokens per word, then
 * bisects between the closest cuts below and above; when no cut hits the count (a word of several tokens steps
 * over it), another subject and passage of the topic are tried. Bounded: a request that cannot be fitted goes
 * out closest, and its achieved count flags the cell. Without a tokenizer every request has the calibrated word
 * count, which a server that counts words (the simulator) counts alike, and a subword tokenizer does not: the
 * achieved counts then flag the cell.
 */
import type { Calibration } from './calibrate.js'
import { FIXED_WORDS } from './prompt.js'
import { closedLoop } from '../stream/schedule.js'
import { textPrompt } from './text-prompt.js'
import type { GeneratedPrompts } from '../../core/plan.js'

export interface TextSpec {
  /** What the passage is: prose, code or math (`prompts`). */
  kind: GeneratedPrompts
  index: number
  fillerWords: number
  variant: number
}

/** Passages of the topic a request may try. */
export const TEXT_VARIANTS = 6
/** Tokenizer calls one request's fit may make. */
export const MAX_FIT_COUNTS = 32
const MAX_JUMPS = 6
/** Fits in flight while a round is prepared. */
const FIT_CONCURRENCY = 4

export const specText = (s: TextSpec): string => textPrompt(s.index, s.fillerWords, s.variant, s.kind)

type Count = (text: string) => Promise<number | undefined>

interface Tried {
  spec: TextSpec
  tokens: number
}

/** Fits one request's prompt to `goal` tokenizer tokens from `start` words; the closest when none hits it. */
export async function fitText(
  index: number,
  start: number,
  goal: number,
  count: Count,
  kind: GeneratedPrompts = 'text',
): Promise<TextSpec> {
  let calls = 0
  let best: Tried | undefined
  const measure = async (spec: TextSpec): Promise<number | undefined> => {
    if (calls >= MAX_FIT_COUNTS) return undefined
    calls++
    const tokens = await count(specText(spec))
    if (tokens !== undefined && (!best || Math.abs(tokens - goal) < Math.abs(best.tokens - goal)))
      best = { spec, tokens }
    return tokens
  }
  let from = start
  for (let variant = 0; variant < TEXT_VARIANTS; variant++) {
    const hit = await fitVariant({ kind, index, fillerWords: from, variant }, goal, measure)
    if (hit === 'exact') return best!.spec
    if (hit === 'stopped') break
    from = best?.spec.fillerWords ?? from
  }
  return best?.spec ?? { kind, index, fillerWords: start, variant: 0 }
}

/** One variant: jumps by the shortfall in words, then bisection between the closest cuts below and above. */
async function fitVariant(
  first: TextSpec,
  goal: number,
  measure: (spec: TextSpec) => Promise<number | undefined>,
): Promise<'exact' | 'missed' | 'stopped'> {
  let below: number | undefined
  let above: number | undefined
  const step = async (words: number): Promise<number | 'exact' | 'stopped'> => {
    const tokens = await measure({ ...first, fillerWords: words })
    if (tokens === undefined) return 'stopped'
    if (tokens === goal) return 'exact'
    if (tokens < goal && (below === undefined || words > below)) below = words
    if (tokens > goal && (above === undefined || words < above)) above = words
    return tokens
  }
  const seen = new Set<number>()
  let words = first.fillerWords
  for (let jump = 0; jump < MAX_JUMPS && !seen.has(words); jump++) {
    seen.add(words)
    const tokens = await step(words)
    if (typeof tokens !== 'number') return tokens
    // Tokens per word of this prompt so far (a subword tokenizer's are more than one): the shortfall in words.
    const perWord = Math.max(1, tokens / (words + FIXED_WORDS))
    words = Math.max(0, words + (Math.round((goal - tokens) / perWord) || Math.sign(goal - tokens)))
  }
  while (below !== undefined && above !== undefined && above - below > 1) {
    const tokens = await step(Math.floor((below + above) / 2))
    if (typeof tokens !== 'number') return tokens
  }
  return 'missed'
}

export interface TextSupply {
  /** What each request is expected to count on the server: the input length once requests are fitted to it. */
  calibration: Calibration
  /** Fits the next round's `requests` prompts (called before each round, untimed). */
  prepare(requests: number, signal?: AbortSignal): Promise<void>
  /** The next request's prompt. */
  next(): string
}

/**
 * A cell's text prompts of `inputTokens`: `index` hands out request indices unique over the client's life, `count`
 * is the engine's tokenizer for the served model (undefined without one). The settled prompt says how the server's
 * count differs from the tokenizer's; each request is fitted to the input length less that, so it is exact even
 * where no whole-word cut of the settled prompt was.
 */
export function textSupply(
  cal: Calibration,
  inputTokens: number,
  index: () => number,
  count?: Count,
  kind: GeneratedPrompts = 'text',
): TextSupply {
  const plain = (i: number): TextSpec => ({ kind, index: i, fillerWords: cal.fillerWords, variant: 0 })
  const goal = cal.tokenized === undefined || !count ? undefined : cal.tokenized + inputTokens - cal.promptTokens
  let specs: TextSpec[] = []
  let taken = 0
  return {
    calibration: goal === undefined ? cal : { ...cal, promptTokens: inputTokens },
    async prepare(requests, signal) {
      const indices = Array.from({ length: requests }, index)
      taken = 0
      specs =
        goal === undefined || !count
          ? indices.map(plain)
          : await closedLoop(
              requests,
              FIT_CONCURRENCY,
              (i) => fitText(indices[i], cal.fillerWords, goal, count, kind),
              signal,
            )
    },
    next: () => specText(specs[taken++] ?? plain(index())),
  }
}
