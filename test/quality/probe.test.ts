import { describe, expect, it } from 'vitest'
import { finalNumber, probeQuestions, PROBE_INSTRUCTION, scoreProbe, solveQuestion } from '../../src/quality/index.js'

describe('probeQuestions', () => {
  it('is deterministic for a seed and count, and a longer list starts with a shorter one', () => {
    expect(probeQuestions(7, 30)).toEqual(probeQuestions(7, 30))
    expect(probeQuestions(7, 30).slice(0, 10)).toEqual(probeQuestions(7, 10))
    expect(probeQuestions(8, 10)).not.toEqual(probeQuestions(7, 10))
  })

  it('covers every template with whole, non-negative answers and the instruction', () => {
    const questions = probeQuestions(1, 200)
    expect(new Set(questions.map((q) => q.kind))).toEqual(
      new Set(['add', 'subtract', 'multiply', 'bought-left', 'speed-time', 'sold-left', 'share', 'savings']),
    )
    for (const q of questions) {
      expect(Number.isInteger(q.answer) && q.answer >= 0).toBe(true)
      expect(q.text.endsWith(` ${PROBE_INSTRUCTION}`)).toBe(true)
    }
    expect(questions.map((q) => q.id).slice(0, 3)).toEqual(['q1', 'q2', 'q3'])
  })

  it.each([0, 201, 1.5])('refuses %s questions', (count) => {
    expect(() => probeQuestions(1, count)).toThrow(RangeError)
  })
})

describe('solveQuestion', () => {
  it('answers every generated question (the simulator relies on it)', () => {
    for (const seed of [1, 2, 3, 99])
      for (const q of probeQuestions(seed, 200)) expect(solveQuestion(q.text), q.text).toBe(q.answer)
  })

  it.each([
    { text: 'What is 4821 + 377? Answer with the number only.', answer: 5198 },
    { text: 'What is 9000 - 1234?', answer: 7766 },
    { text: 'What is 47 × 36?', answer: 1692 },
    {
      text: 'Maya buys 3 packs of 12 pencils and gives 5 pencils to friends. How many pencils does Maya have left?',
      answer: 31,
    },
    { text: 'A train travels at 60 kilometres per hour for 4 hours. How many kilometres does it travel?', answer: 240 },
    {
      text: 'A shop has 200 apples. It sells 50 in the morning and 30 in the afternoon. How many apples are left?',
      answer: 120,
    },
    { text: 'Omar shares 48 cookies equally among 6 friends. How many cookies does each friend get?', answer: 8 },
    {
      text: 'Lena saves 10 dollars a week for 5 weeks and then spends 12 dollars. How many dollars are left?',
      answer: 38,
    },
    // Few-shot: the last question is the one asked.
    { text: 'What is 1000 + 100?\n1100\nWhat is 2000 + 200?', answer: 2200 },
    { text: 'System: be brief.\nUser:  What is 1500\n+ 25?', answer: 1525 },
  ])('$text → $answer', ({ text, answer }) => {
    expect(solveQuestion(text)).toBe(answer)
  })

  it.each([
    'Note the of and to time people year',
    'What is the capital of Japan?',
    // A repeated name must match the first one.
    'Maya buys 3 packs of 12 pencils and gives 5 pencils to friends. How many pencils does Omar have left?',
  ])('no question in %j', (text) => {
    expect(solveQuestion(text)).toBeUndefined()
  })
})

describe('finalNumber', () => {
  it.each([
    { reply: '5198', value: 5198 },
    { reply: 'The answer is 5198.', value: 5198 },
    { reply: '**5198**', value: 5198 },
    { reply: 'The total is 5,198 pencils.', value: 5198 },
    { reply: 'It costs $1,234,567.', value: 1234567 },
    { reply: '4821 + 377 = 5198', value: 5198 },
    { reply: 'First 48 × 2 = 96, then 96 - 11 = 85.\n#### 85', value: 85 },
    { reply: '#### 85\nThat is 85 of 100 apples.', value: 85 },
    { reply: 'The answer is 5198.0', value: 5198 },
    { reply: 'The change is -12.', value: -12 },
    { reply: 'The answer: 12, 13, 14', value: 14 },
    { reply: "'s's's's's's", value: undefined },
    { reply: '', value: undefined },
  ])('$reply → $value', ({ reply, value }) => {
    expect(finalNumber(reply)).toBe(value)
  })
})

describe('scoreProbe', () => {
  const questions = probeQuestions(3, 4)

  it.each([
    { name: 'all right', replies: questions.map((q) => `The answer is ${q.answer}.`), correct: 4, accuracy: 1 },
    {
      name: 'one off by one',
      replies: questions.map((q, i) => `#### ${q.answer + (i === 2 ? 1 : 0)}`),
      correct: 3,
      accuracy: 0.75,
    },
    {
      name: 'garbage and a failed request',
      replies: ["'s's's", undefined, String(questions[2].answer), String(questions[3].answer)],
      correct: 2,
      accuracy: 0.5,
    },
    { name: 'no replies', replies: [], correct: 0, accuracy: 0 },
  ])('$name', ({ replies, correct, accuracy }) => {
    const score = scoreProbe(questions, replies)
    expect(score).toMatchObject({ questions: 4, correct, accuracy })
    expect(score.misses).toHaveLength(4 - correct)
  })

  it('names each miss with what was expected and what came back', () => {
    expect(scoreProbe(questions.slice(0, 2), ['nothing', `${questions[1].answer + 3}`]).misses).toEqual([
      { id: 'q1', number: 1, expected: questions[0].answer, got: null },
      { id: 'q2', number: 2, expected: questions[1].answer, got: questions[1].answer + 3 },
    ])
  })
})
