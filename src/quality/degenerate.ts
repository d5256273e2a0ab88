/**
 * Degenerate output: what broken quantizations and kernels stream at full speed with HTTP 200
 * (`'s's's…`, `++++…`, one word or one sentence over and over). Each response is judged on its
 * first DEGENERATE_SAMPLE_CHARS characters, by three checks in turn:
 *
 * - **repeat**: a fragment of at most MAX_PERIOD characters repeated back to back (the text
 *   equals itself shifted by the fragment's length) over REPEAT_COVERAGE of the sample, at
 *   least MIN_REPEATS times;
 * - **compression**: on samples of MIN_COMPRESSED_BYTES or more, raw deflate size over UTF-8
 *   size below MIN_COMPRESSION_RATIO: a longer passage looping, which LZ77 turns into
 *   back-references. Repetition detectors use the same signal (Whisper's decoder retries a
 *   segment whose gzip compression ratio, raw over compressed, exceeds 2.4); the limit here is
 *   far stricter (a ratio over about 14) because JSON, code and templated lists compress well
 *   without being broken. It catches a passage of up to about 200 characters looping through
 *   the sample;
 * - **vocabulary**: on samples of MIN_VOCABULARY_WORDS words or more, distinct words over
 *   words below MIN_DISTINCT_RATIO: a handful of words in any order, which neither a period
 *   nor deflate's back-references catch.
 *
 * The limits sit clear of healthy text: on 2,048-character samples, prose deflates to about
 * 50 %, pretty-printed JSON to 24 %, a templated HTML list to 11 %; distinct words are 40–65 %
 * of prose, code and tables and 10 % of the templated list (the tests hold the limits to a
 * table of such samples and of the simulator's text). A cell's
 * share is only ever compared with the same cell's baseline share.
 */
import { deflateRawSync } from 'node:zlib'
import { DEGENERATE_KINDS, type DegenerateCheck, type DegenerateKind, type DegenerateTally } from '../core/quality.js'
import { formatPercent } from '../core/format.js'
import { quote, wordTokens } from './text.js'

/** Characters of each response that are kept and judged. */
export const DEGENERATE_SAMPLE_CHARS = 2048
/** Shorter samples are not judged. */
export const MIN_JUDGED_CHARS = 64
export const MAX_PERIOD = 32
export const REPEAT_COVERAGE = 0.8
export const MIN_REPEATS = 4
export const MIN_COMPRESSED_BYTES = 256
export const MIN_COMPRESSION_RATIO = 0.07
export const MIN_VOCABULARY_WORDS = 64
export const MIN_DISTINCT_RATIO = 0.05

export type { DegenerateCheck }

/** A streamed response's sample so far with one more piece of text; stops growing at DEGENERATE_SAMPLE_CHARS. */
export function appendSample(sample: string, delta: string): string {
  return sample.length >= DEGENERATE_SAMPLE_CHARS ? sample : (sample + delta).slice(0, DEGENERATE_SAMPLE_CHARS)
}

/** The longest stretch of `text` equal to itself shifted by `period`, as its start and length. */
function periodicStretch(text: string, period: number): { start: number; length: number } {
  let best = { start: 0, length: 0 }
  let run = 0
  for (let i = period; i < text.length; i++) {
    run = text.charCodeAt(i) === text.charCodeAt(i - period) ? run + 1 : 0
    if (run + period > best.length) best = { start: i - run - period + 1, length: run + period }
  }
  return best
}

function repeated(sample: string): DegenerateCheck | undefined {
  for (let period = 1; period <= MAX_PERIOD; period++) {
    const { start, length } = periodicStretch(sample, period)
    if (length >= REPEAT_COVERAGE * sample.length && length >= MIN_REPEATS * period) {
      const fragment = sample.slice(start, start + period)
      const reason = `repeats ${quote(fragment, 24)} over ${formatPercent(length / sample.length)} of ${sample.length} characters`
      return { judged: true, degenerate: true, kind: 'repeat', fragment, reason }
    }
  }
  return undefined
}

function compressible(sample: string): DegenerateCheck | undefined {
  const raw = Buffer.from(sample, 'utf8')
  if (raw.length < MIN_COMPRESSED_BYTES) return undefined
  const ratio = deflateRawSync(raw).length / raw.length
  if (ratio >= MIN_COMPRESSION_RATIO) return undefined
  return {
    judged: true,
    degenerate: true,
    kind: 'compression',
    reason: `deflates to ${formatPercent(ratio)} of its size (limit ${formatPercent(MIN_COMPRESSION_RATIO)})`,
  }
}

function collapsed(sample: string): DegenerateCheck | undefined {
  const words = wordTokens(sample)
  if (words.length < MIN_VOCABULARY_WORDS) return undefined
  const distinct = new Set(words).size
  if (distinct / words.length >= MIN_DISTINCT_RATIO) return undefined
  const reason = `${distinct} distinct of ${words.length} words (${formatPercent(distinct / words.length)}, limit ${formatPercent(MIN_DISTINCT_RATIO)})`
  return { judged: true, degenerate: true, kind: 'vocabulary', reason }
}

/** Judges one response by its first DEGENERATE_SAMPLE_CHARS characters. */
export function checkDegenerate(text: string): DegenerateCheck {
  const sample = text.slice(0, DEGENERATE_SAMPLE_CHARS)
  if (sample.length < MIN_JUDGED_CHARS)
    return {
      judged: false,
      degenerate: false,
      reason: `too short to judge (${sample.length} characters, needs ${MIN_JUDGED_CHARS})`,
    }
  return (
    repeated(sample) ??
    compressible(sample) ??
    collapsed(sample) ?? { judged: true, degenerate: false, reason: 'not degenerate' }
  )
}

/** The cell's tally over its sampled responses. */
export function tallyDegenerate(checks: readonly DegenerateCheck[]): DegenerateTally {
  const judged = checks.filter((c) => c.judged)
  const bad = judged.filter((c) => c.degenerate)
  const kinds = Object.fromEntries(DEGENERATE_KINDS.map((k) => [k, bad.filter((c) => c.kind === k).length])) as Record<
    DegenerateKind,
    number
  >
  const fragment = bad.find((c) => c.fragment !== undefined)?.fragment
  return {
    judged: judged.length,
    degenerate: bad.length,
    share: judged.length === 0 ? null : bad.length / judged.length,
    kinds,
    ...(fragment !== undefined && { example: fragment }),
  }
}
