/**
 * Probe questions: seeded, offline, with exact whole-number answers, in the spirit of GSM8K
 * (Cobbe et al. 2021, "Training Verifiers to Solve Math Word Problems"): multi-digit arithmetic
 * and short word problems. A healthy model answers nearly all of them at temperature 0; a
 * broken quantization or kernel does not.
 *
 * Each template is one sentence with `{a}`… for numbers and `{name}`, `{item}`, `{vehicle}` for
 * words. The same text generates a question and, compiled to a regular expression, recognises
 * one: `solveQuestion` finds the last question of any template in a text and computes its
 * answer (the simulator answers the probe with it).
 */
import { mulberry32 } from '../core/random.js'
import { escapeRegExp } from '../core/redact.js'

export interface ProbeQuestion {
  /** `q1`, `q2`, … in generation order. */
  id: string
  kind: string
  /** The whole prompt: the question and the instruction to answer with the number only. */
  text: string
  answer: number
}

type Numbers = Record<string, number>
type Int = (lo: number, hi: number) => number

interface Template {
  kind: string
  text: string
  /** Draws the numbers so that the answer is a whole number ≥ 0. */
  draw(int: Int): Numbers
  answer(n: Numbers): number
}

const TEMPLATES: readonly Template[] = [
  {
    kind: 'add',
    text: 'What is {a} + {b}?',
    draw: (int) => ({ a: int(1000, 9999), b: int(100, 9999) }),
    answer: (n) => n.a + n.b,
  },
  {
    kind: 'subtract',
    text: 'What is {a} - {b}?',
    draw: (int) => {
      const a = int(1000, 9999)
      return { a, b: int(100, a - 1) }
    },
    answer: (n) => n.a - n.b,
  },
  {
    kind: 'multiply',
    text: 'What is {a} × {b}?',
    draw: (int) => ({ a: int(12, 99), b: int(12, 99) }),
    answer: (n) => n.a * n.b,
  },
  {
    kind: 'bought-left',
    text: '{name} buys {a} packs of {b} {item} and gives {c} {item} to friends. How many {item} does {name} have left?',
    draw: (int) => {
      const [a, b] = [int(3, 19), int(6, 24)]
      return { a, b, c: int(1, a * b - 1) }
    },
    answer: (n) => n.a * n.b - n.c,
  },
  {
    kind: 'speed-time',
    text: 'A {vehicle} travels at {a} kilometres per hour for {b} hours. How many kilometres does it travel?',
    draw: (int) => ({ a: int(12, 95), b: int(2, 9) }),
    answer: (n) => n.a * n.b,
  },
  {
    kind: 'sold-left',
    text: 'A shop has {a} {item}. It sells {b} in the morning and {c} in the afternoon. How many {item} are left?',
    draw: (int) => {
      const a = int(120, 900)
      const b = int(10, Math.floor(a / 2))
      return { a, b, c: int(1, a - b - 1) }
    },
    answer: (n) => n.a - n.b - n.c,
  },
  {
    kind: 'share',
    text: '{name} shares {a} {item} equally among {b} friends. How many {item} does each friend get?',
    draw: (int) => {
      const b = int(3, 12)
      return { a: b * int(4, 40), b }
    },
    answer: (n) => n.a / n.b,
  },
  {
    kind: 'savings',
    text: '{name} saves {a} dollars a week for {b} weeks and then spends {c} dollars. How many dollars are left?',
    draw: (int) => {
      const [a, b] = [int(5, 60), int(3, 20)]
      return { a, b, c: int(1, a * b - 1) }
    },
    answer: (n) => n.a * n.b - n.c,
  },
]

const WORDS: Record<string, readonly string[]> = {
  name: ['Maya', 'Omar', 'Lena', 'Tariq', 'Sofia', 'Kenji', 'Amara', 'Lucas', 'Priya', 'Jonas'],
  item: ['pencils', 'apples', 'stickers', 'marbles', 'cookies', 'stamps', 'batteries', 'oranges'],
  vehicle: ['train', 'bus', 'truck', 'ferry', 'cyclist', 'car'],
}

export const PROBE_INSTRUCTION = 'Answer with the number only.'
/** One question is 100/count points: at 40, two answers flipping on a healthy engine stay within the default 5-point limit. */
export const PROBE_DEFAULT_QUESTIONS = 40
export const PROBE_DEFAULT_SEED = 1
/** More questions buy resolution; past this many the probe stops being short. */
export const PROBE_MAX_QUESTIONS = 200
/** Room for the number and a short sentence around it; a model that reasons before answering needs more. */
export const PROBE_MAX_TOKENS = 32

function fill(template: Template, numbers: Numbers, words: Record<string, string>): string {
  return template.text.replace(/\{(\w+)\}/g, (_, key: string) => (key in numbers ? String(numbers[key]) : words[key]))
}

/** `count` questions for `seed`; the same seed gives the same questions, and a longer list starts with a shorter one. */
export function probeQuestions(seed: number, count: number): ProbeQuestion[] {
  if (!Number.isInteger(count) || count < 1 || count > PROBE_MAX_QUESTIONS)
    throw new RangeError(`probe: question count must be 1–${PROBE_MAX_QUESTIONS}, got ${count}`)
  const rng = mulberry32(seed)
  const int: Int = (lo, hi) => lo + Math.floor(rng() * (hi - lo + 1))
  return Array.from({ length: count }, (_, i) => {
    const template = TEMPLATES[int(0, TEMPLATES.length - 1)]
    const words = Object.fromEntries(Object.entries(WORDS).map(([key, list]) => [key, list[int(0, list.length - 1)]]))
    const numbers = template.draw(int)
    return {
      id: `q${i + 1}`,
      kind: template.kind,
      text: `${fill(template, numbers, words)} ${PROBE_INSTRUCTION}`,
      answer: template.answer(numbers),
    }
  })
}

/** The template as a global regular expression: numbers and words captured by name, a repeated word matched again. */
function compile(template: Template): RegExp {
  const seen = new Set<string>()
  const parts = template.text.split(/(\{\w+\})/).map((part) => {
    const key = /^\{(\w+)\}$/.exec(part)?.[1]
    if (!key) return escapeRegExp(part).replace(/ /g, '\\s+')
    if (seen.has(key)) return `\\k<${key}>`
    seen.add(key)
    return key in WORDS ? `(?<${key}>\\p{L}+)` : `(?<${key}>\\d+)`
  })
  return new RegExp(parts.join(''), 'gu')
}

const COMPILED = TEMPLATES.map((template) => ({ template, pattern: compile(template) }))

/** The answer to the last probe question in `text`, or undefined when it holds none. */
export function solveQuestion(text: string): number | undefined {
  let last: { at: number; answer: number } | undefined
  for (const { template, pattern } of COMPILED) {
    for (const match of text.matchAll(pattern)) {
      const numbers = Object.fromEntries(
        Object.entries(match.groups ?? {})
          .filter(([key]) => !(key in WORDS))
          .map(([key, value]) => [key, Number(value)]),
      )
      if (!last || match.index > last.at) last = { at: match.index, answer: template.answer(numbers) }
    }
  }
  return last?.answer
}
