/**
 * Greedy prompts and agreement. The probe sends a fixed set of short prompts at temperature 0;
 * the baseline keeps each output's first GREEDY_KEEP_CHARS characters, and a later run's
 * outputs are compared with those, token by token.
 *
 * Agreement of one prompt is the shared-prefix fraction: how many leading tokens (words and
 * single punctuation characters) the two outputs share, over the longer output's token count.
 * Greedy decoding is autoregressive: once one token differs, everything after it continues a
 * different text, so what two greedy outputs share is their prefix. An edit similarity would
 * also credit the chance overlap of two unrelated continuations (common words) and add noise
 * without information. Batch nondeterminism (a near-tie logit flipping with batch size, see
 * vLLM's notes on batch invariance) can flip a token on a healthy engine; late flips cost
 * little, and the cell figure is the mean over the prompts, so one early flip among
 * GREEDY_PROMPTS.length prompts does not take a healthy engine under the default 0.8.
 */
import type { Agreement, GreedyOutput } from '../core/quality.js'
import { quote, tokens } from './text.js'

/** At most this many prompts are kept in a baseline, … */
export const GREEDY_MAX_PROMPTS = 16
/** … and this many characters of each output. */
export const GREEDY_KEEP_CHARS = 256
/** Agreement compares a prefix, not an essay: 48 tokens of English fill most of GREEDY_KEEP_CHARS characters. */
export const GREEDY_MAX_TOKENS = 48

export const GREEDY_PROMPTS: readonly string[] = [
  'Write one sentence about the ocean.',
  'List the first five prime numbers.',
  'Explain what a hash table is in two sentences.',
  "Translate 'good morning' into French, Spanish and German.",
  'Write a Python function that returns the square of a number.',
  'What is the capital of Japan? Answer in one sentence.',
  'Give three tips for a job interview.',
  'Describe the colour of the sky at sunset.',
  'Write a haiku about autumn leaves.',
  'Summarise the water cycle in three steps.',
  'Write a JSON object describing a book with a title, an author and a year.',
  'Explain the difference between a list and a tuple in Python.',
]

/**
 * Benchmark-shaped greedy requests per target: a filler prompt of the target's first scenario's length (at most
 * BENCHMARK_SHAPED_MAX_INPUT tokens, so a 100K-token scenario does not add minutes of prefill), `ignore_eos`, the
 * target's API and request body. The probe's prompts are short and honour end-of-sequence; an engine whose
 * benchmark path breaks (long prompts, `ignore_eos`) while those stay right is caught only here. Sent one at a
 * time, so each runs alone in its batch in every run and batch nondeterminism cannot flip it.
 */
export const BENCHMARK_SHAPED_REQUESTS = 2
export const BENCHMARK_SHAPED_MAX_INPUT = 2048

/** The key a benchmark-shaped output is stored and matched under: its number and prompt length. */
export function benchmarkShapedKey(index: number, inputTokens: number): string {
  return `${BENCHMARK_SHAPED_PREFIX}${index + 1}: a ${inputTokens}-token filler prompt, ignore_eos`
}
const BENCHMARK_SHAPED_PREFIX = 'benchmark-shaped #'
const isBenchmarkShaped = (prompt: string) => prompt.startsWith(BENCHMARK_SHAPED_PREFIX)

function clip(text: string): string {
  return [...text].slice(0, GREEDY_KEEP_CHARS).join('')
}

/** What a results file keeps of the greedy outputs: the first GREEDY_MAX_PROMPTS, each clipped to GREEDY_KEEP_CHARS characters. */
export function keepGreedy(outputs: readonly GreedyOutput[]): GreedyOutput[] {
  return outputs.slice(0, GREEDY_MAX_PROMPTS).map((o) => ({ prompt: o.prompt, text: clip(o.text) }))
}

export interface PromptAgreement {
  /** Shared-prefix fraction, 0–1 (1 when both outputs are empty). */
  fraction: number
  /** Leading tokens both share. */
  shared: number
  /** Token count of the longer output. */
  total: number
  /** The first differing token on each side; undefined where that side had ended. */
  baseline?: string
  current?: string
}

/** Token agreement of one current output with the stored one, both clipped as a results file keeps them. */
export function promptAgreement(current: string, stored: string): PromptAgreement {
  const a = tokens(clip(current))
  const b = tokens(clip(stored))
  let shared = 0
  while (shared < a.length && shared < b.length && a[shared] === b[shared]) shared++
  const total = Math.max(a.length, b.length)
  return { fraction: total === 0 ? 1 : shared / total, shared, total, baseline: b[shared], current: a[shared] }
}

/** Plain text for a report: `"List the first five…" shares 3 of 41 tokens, then baseline "7", now "'s"`. */
export function describeDifference(prompt: string, agreement: PromptAgreement): string {
  const side = (token: string | undefined) => (token === undefined ? 'ends' : quote(token, 24))
  return `${quote(prompt, 40)} shares ${agreement.shared} of ${agreement.total} tokens, then baseline ${side(agreement.baseline)}, now ${side(agreement.current)}`
}

/**
 * Mean agreement over the prompts both runs have (matched by prompt text), the lower of the probe prompts' and
 * the benchmark-shaped requests' means, with the least agreeing one described; undefined when they share none.
 */
export function greedyAgreement(
  current: readonly GreedyOutput[],
  stored: readonly GreedyOutput[],
): Agreement | undefined {
  const now = new Map(current.map((o) => [o.prompt, o.text]))
  const pairs = keepGreedy(stored)
    .filter((o) => now.has(o.prompt))
    .map((o) => ({ prompt: o.prompt, agreement: promptAgreement(now.get(o.prompt)!, o.text) }))
  if (pairs.length === 0) return undefined
  // The probe's prompts and the benchmark-shaped ones are two groups; the cell's figure is the lower mean, so
  // two garbage benchmark-shaped outputs are not averaged away by a dozen right probe outputs.
  const meanOf = (group: typeof pairs) => group.reduce((sum, p) => sum + p.agreement.fraction, 0) / group.length
  const groups = [pairs.filter((p) => !isBenchmarkShaped(p.prompt)), pairs.filter((p) => isBenchmarkShaped(p.prompt))]
  const mean = Math.min(...groups.filter((g) => g.length).map(meanOf))
  const worst = pairs.reduce((w, p) => (p.agreement.fraction < w.agreement.fraction ? p : w))
  return {
    mean,
    prompts: pairs.length,
    ...(worst.agreement.fraction < 1 && { worst: describeDifference(worst.prompt, worst.agreement) }),
  }
}
