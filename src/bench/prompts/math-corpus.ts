/**
 * The corpus `prompts: math` draws its passages from: everyday word problems with their worked solutions (prices,
 * distances, recipes, savings, areas, percentages), generated here with a fixed seed, the arithmetic done here, so
 * every step is right, the text the same in every run and on every machine, and nothing downloaded or copied. A
 * passage is PROBLEMS_PER_PASSAGE problems of one topic; a drafter meets worked arithmetic as its users send it.
 */
import { mulberry32 } from '../../core/random.js'
import { corpusOf, type Corpus, type PromptTopic } from './text-corpus.js'

type Draw = (low: number, high: number) => number
type Problem = (n: Draw) => string

interface MathTopic extends PromptTopic {
  problems: readonly Problem[]
}

const TOPICS: readonly MathTopic[] = [
  {
    name: 'shopping',
    about: ['a shopping bill', 'prices at a market', 'buying school supplies', 'a weekly shop'],
    questions: ['how much is spent in all?', 'how much change is given?', 'which item costs more in total?'],
    problems: [
      (n) => {
        const [a, p, b, q] = [n(2, 9), n(2, 15), n(2, 9), n(1, 8)]
        return `A shop sells ${a} notebooks at ${p} dollars each and ${b} pens at ${q} dollars each. What do they cost together? Solution: ${a} × ${p} = ${a * p} and ${b} × ${q} = ${b * q}, so the total is ${a * p} + ${b * q} = ${a * p + b * q} dollars.`
      },
      (n) => {
        const [k, p] = [n(3, 12), n(2, 9)]
        const paid = Math.ceil((k * p) / 20) * 20 + 20
        return `Buying ${k} apples at ${p} dollars each and paying with ${paid} dollars gives what change? Solution: ${k} × ${p} = ${k * p}, and ${paid} − ${k * p} = ${paid - k * p} dollars of change.`
      },
    ],
  },
  {
    name: 'travel',
    about: ['a train journey', 'a cycling trip', 'driving times', 'a walk in the hills'],
    questions: ['how long does the trip take?', 'what is the average speed?', 'how far is travelled in all?'],
    problems: [
      (n) => {
        const [v, h] = [n(40, 120), n(2, 6)]
        return `A train runs at ${v} km/h for ${h} hours. How far does it go? Solution: distance = speed × time = ${v} × ${h} = ${v * h} km.`
      },
      (n) => {
        const [d1, d2, t] = [n(10, 60), n(10, 60), n(2, 5)]
        return `A cyclist rides ${d1} km in the morning and ${d2} km in the afternoon, ${t} hours in all. What is the average speed? Solution: ${d1} + ${d2} = ${d1 + d2} km, and ${d1 + d2} / ${t} = ${+((d1 + d2) / t).toFixed(2)} km/h.`
      },
    ],
  },
  {
    name: 'recipes',
    about: ['scaling a recipe', 'baking for a party', 'kitchen quantities', 'a soup for a crowd'],
    questions: ['how much flour is needed?', 'how many portions does it make?', 'how much of each is used?'],
    problems: [
      (n) => {
        const [g, s, t] = [n(150, 500), n(2, 6), n(6, 24)]
        return `A recipe for ${s} people uses ${g} g of flour. How much is needed for ${t} people? Solution: ${g} / ${s} = ${+(g / s).toFixed(2)} g a person, and ${+(g / s).toFixed(2)} × ${t} = ${+((g / s) * t).toFixed(2)} g.`
      },
      (n) => {
        const [l, p] = [n(2, 9), n(150, 400)]
        return `A pot holds ${l} litres of soup and one portion is ${p} ml. How many full portions is that? Solution: ${l} × 1000 = ${l * 1000} ml, and ${l * 1000} / ${p} = ${+((l * 1000) / p).toFixed(2)}, so ${Math.floor((l * 1000) / p)} portions.`
      },
    ],
  },
  {
    name: 'savings',
    about: ['saving for a bike', 'a monthly budget', 'pocket money', 'interest on savings'],
    questions: ['how much is saved after the last week?', 'how many weeks does it take?', 'how much is left?'],
    problems: [
      (n) => {
        const [s, w, x] = [n(5, 40), n(4, 20), n(5, 60)]
        return `Saving ${s} dollars a week for ${w} weeks, then spending ${x} dollars, leaves how much? Solution: ${s} × ${w} = ${s * w}, and ${s * w} − ${x} = ${s * w - x} dollars.`
      },
      (n) => {
        const [p, r] = [n(100, 2000), n(1, 9)]
        return `A balance of ${p} dollars earns ${r} % interest in a year. What is it after one year? Solution: ${p} × ${r} / 100 = ${+((p * r) / 100).toFixed(2)}, and ${p} + ${+((p * r) / 100).toFixed(2)} = ${+(p + (p * r) / 100).toFixed(2)} dollars.`
      },
    ],
  },
  {
    name: 'areas',
    about: ['a garden plot', 'painting a wall', 'tiling a floor', 'fencing a field'],
    questions: ['what is the area?', 'how much fence is needed?', 'how many tiles are used?'],
    problems: [
      (n) => {
        const [a, b] = [n(3, 30), n(3, 30)]
        return `A garden is ${a} m by ${b} m. What are its area and its perimeter? Solution: area = ${a} × ${b} = ${a * b} m², and perimeter = 2 × (${a} + ${b}) = ${2 * (a + b)} m.`
      },
      (n) => {
        const [a, b, t] = [n(2, 9), n(2, 9), n(2, 5)]
        return `A floor of ${a} m by ${b} m is covered in square tiles of ${t * 10} cm. How many tiles is that? Solution: ${a} × ${b} = ${a * b} m², one tile is ${t / 10} × ${t / 10} = ${+((t / 10) ** 2).toFixed(4)} m², and ${a * b} / ${+((t / 10) ** 2).toFixed(4)} = ${Math.round((a * b) / (t / 10) ** 2)} tiles.`
      },
    ],
  },
  {
    name: 'percentages',
    about: ['a sale in a shop', 'test scores', 'a pay rise', 'votes in a club'],
    questions: ['what is the new price?', 'what share passed?', 'how large is the increase?'],
    problems: [
      (n) => {
        const [p, d] = [n(20, 400), n(5, 50)]
        return `A coat costs ${p} dollars and is reduced by ${d} %. What is the new price? Solution: ${p} × ${d} / 100 = ${+((p * d) / 100).toFixed(2)}, and ${p} − ${+((p * d) / 100).toFixed(2)} = ${+(p - (p * d) / 100).toFixed(2)} dollars.`
      },
      (n) => {
        const [k, t] = [n(5, 40), n(41, 80)]
        return `Of ${t} students, ${k} scored above 90. What percentage is that? Solution: ${k} / ${t} = ${+(k / t).toFixed(4)}, and ${+(k / t).toFixed(4)} × 100 = ${+((100 * k) / t).toFixed(2)} %.`
      },
    ],
  },
]

export const MATH_TOPICS: readonly PromptTopic[] = TOPICS
export const MATH_PASSAGES_PER_TOPIC = 12
const PROBLEMS_PER_PASSAGE = 4
const SEED = 0x3a7

/** Instructions by task: `{about}` names the problems' subject, `{question}` asks about them. */
export const MATH_TASKS = [
  'please solve the following problems about {about}, showing each step.',
  'please check the working below about {about} and correct any mistakes.',
  'please answer the question using only the problems below. Question: {question}',
  'please explain the method used in these problems about {about} to a student.',
  'please write one more problem like these about {about}, with its solution.',
  'please turn the problems below about {about} into a short quiz with answers.',
  'please say which of these problems about {about} is the hardest and why.',
  'please redo the problems below about {about} with the numbers doubled.',
]

let built: Corpus | undefined

/** The math corpus, built on first use: the same text in every run. */
export function mathCorpus(): Corpus {
  built ??= buildMath()
  return built
}

function buildMath(): Corpus {
  const random = mulberry32(SEED)
  const draw: Draw = (low, high) => low + Math.floor(random() * (high - low + 1))
  const passage = (t: MathTopic) =>
    Array.from({ length: PROBLEMS_PER_PASSAGE }, () => t.problems[Math.floor(random() * t.problems.length)](draw)).join(
      ' ',
    )
  return corpusOf(TOPICS.map((t) => Array.from({ length: MATH_PASSAGES_PER_TOPIC }, () => passage(t))))
}
