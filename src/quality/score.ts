/**
 * Exact-match scoring of probe replies. The final number of a reply is its answer, as
 * lm-evaluation-harness's GSM8K task extracts it ("flexible-extract": the last number in the
 * reply), except that a GSM8K-style `#### 5198` line wins wherever it stands ("strict-match").
 * Thousands separators, currency signs, markdown emphasis and a trailing period do not matter;
 * `5198.0` equals 5198.
 */
import type { ProbeQuestion } from './probe.js'

/** A number: optional minus, digits with optional inner thousands commas, optional decimals. */
const NUMBER = /-?\d(?:[\d,]*\d)?(?:\.\d+)?/g

function numbers(text: string): number[] {
  return (text.match(NUMBER) ?? []).map((raw) => Number(raw.replace(/,/g, '')))
}

/** The final number of a reply: the first after the last `####` when there is one, else the last number. */
export function finalNumber(reply: string): number | undefined {
  const marker = reply.lastIndexOf('####')
  const strict = marker >= 0 ? numbers(reply.slice(marker + 4))[0] : undefined
  return strict ?? numbers(reply).at(-1)
}

export interface ProbeMiss {
  id: string
  /** The question's place in the probe, from 1 (what a results file's `probe.missed` lists). */
  number: number
  expected: number
  /** The reply's final number; null when it had none or the request failed. */
  got: number | null
}

export interface ProbeScore {
  questions: number
  correct: number
  /** correct / questions, 0–1. */
  accuracy: number
  /** Wrong answers in question order. */
  misses: ProbeMiss[]
}

/** Scores replies (in question order; undefined for a failed request) by exact match of the final number. */
export function scoreProbe(questions: readonly ProbeQuestion[], replies: readonly (string | undefined)[]): ProbeScore {
  const misses: ProbeMiss[] = []
  questions.forEach((q, i) => {
    const reply = replies[i]
    const got = reply === undefined ? undefined : finalNumber(reply)
    if (got !== q.answer) misses.push({ id: q.id, number: i + 1, expected: q.answer, got: got ?? null })
  })
  const correct = questions.length - misses.length
  return {
    questions: questions.length,
    correct,
    accuracy: questions.length === 0 ? 0 : correct / questions.length,
    misses,
  }
}
