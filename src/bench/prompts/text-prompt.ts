/**
 * `prompts: text`: an instruction followed by a passage of the generated corpus (text-corpus.ts), so a draft
 * model meets prose as its users write it rather than a word list. Like the word-list prompt (prompt.ts) it is
 * unique per request index from its second word on, so no prefix cache serves one request from another: it
 * opens with a sender, FIXED_WORDS words (`From Amara Lindqvist in Porto:`) of which the index's digits pick
 * three, unique for OPENINGS indices; then the instruction, whose topic and task the index's higher digits
 * pick, so openings and instructions together repeat only after OPENINGS × topics × tasks indices; then the
 * passage, from one of the topic's passages on. The fixed first word, like the word list's `Note`, keeps the
 * start of the text the same wherever it stands: a chat template puts the text after its own header, where a
 * SentencePiece tokenizer splits a first word differently than at the start of a bare prompt, so the template
 * costs every prompt the same only when their first word is the same. Measured on llama-server (the test
 * models' ChatML template) over 150 prompts: a chat request cost 27 to 29 tokens more than `/tokenize` counted
 * with the name first, 27 every time with `From` first.
 *
 * The length is counted in whitespace words, as `promptText` counts it: `textPrompt(i, n)` has exactly
 * FIXED_WORDS + n words for every index (fewer than the instruction cuts the instruction short), so a server that
 * counts words (the simulator) sees one length for every request, and calibrate.ts works on it unchanged. A
 * subword tokenizer gives each request its own count; text-fit.ts fits each request's words to the calibrated
 * count, with another subject and passage of the topic (`variant`) when no whole-word cut hits it.
 */
import { mulberry32 } from '../../core/random.js'
import type { GeneratedPrompts } from '../../core/plan.js'
import { CODE_TASKS, CODE_TOPICS, codeCorpus } from './code-corpus.js'
import { MATH_TASKS, MATH_TOPICS, mathCorpus } from './math-corpus.js'
import { TOPICS, corpusWords, textCorpus, type Corpus, type PromptTopic } from './text-corpus.js'

const FIRST = (
  'Amara Bruno Chen Dalia Emeka Farah Goran Hana Ivan Jonas Kira Leon Maya Nikos Omar Priya ' +
  'Quinn Rosa Sami Tara Umar Vera Wen Ximena Yusuf Zara Anders Bea Carlos Devi Elena Felix ' +
  'Greta Hugo Ines Jamal Kenji Lina Marco Nadia Oskar Paula Rafael Sofia Tomas Uma Viktor Wanda ' +
  'Yara Zoltan Adele Boris Clara Diego Esme Fatima Gideon Helga Idris Julia Kofi Lucia Mateo Nora'
).split(' ')

const LAST = (
  'Lindqvist Okafor Moreau Tanaka Novak Haddad Ferreira Kowalski Brennan Rossi Castillo Nakamura ' +
  'Petrov Andersen Mensah Dubois Schmidt Horvat Silva Kaur Murphy Costa Larsen Ibrahim Weber Popescu ' +
  'Santos Fischer Nyberg Alvarez Varga Keller Jansen Amoah Laurent Bianchi Torres Nilsson Yilmaz ' +
  'Doyle Marino Hoffmann Quispe Ortega Sato Wagner Nowak Lopez Hansen Osei Baker Romano Kim Farouk ' +
  'Sorensen Molina Vogel Castro Berg Mendes Park Rahman Flores Gallo'
).split(' ')

const CITIES = (
  'Porto Lyon Osaka Nairobi Krakow Quito Bergen Hanoi Seville Tampere Cork Adelaide Bologna Durban ' +
  'Leipzig Valparaiso Ghent Izmir Tallinn Halifax Mysore Utrecht Recife Zagreb Kyoto Accra Graz ' +
  'Bristol Cusco Malmo Brno Perth Leeds Lagos Turin Aarhus Busan Kigali Rouen Cebu Split Oaxaca Nantes ' +
  'Dundee Tbilisi Riga Salta Gdansk Lucerne Chennai Marseille Tromso Fes Hobart Vilnius Medellin Bilbao ' +
  'Kobe Galway Innsbruck Arusha Plovdiv Curitiba Ljubljana'
).split(' ')

/** Instructions by task: `{about}` names the passage's subject, `{question}` asks about it. */
const TASKS = [
  'please summarise the following notes about {about} in three sentences.',
  'please rewrite this passage about {about} as a short list of clear steps.',
  'please answer the question using only the passage below. Question: {question}',
  'please explain the text below about {about} to a friend who is new to it.',
  'please give these notes about {about} a title and list their main points.',
  'please correct any mistakes in the following notes about {about} and keep the rest as it is.',
  'please turn the passage below about {about} into a short, friendly email.',
  'please read the passage about {about} below and suggest three questions a reader might ask.',
]

/** Distinct openings: every index below this has its own first FIXED_WORDS words. */
export const OPENINGS = FIRST.length * LAST.length * CITIES.length

function opening(index: number): string {
  const first = FIRST[index % FIRST.length]
  const last = LAST[Math.floor(index / FIRST.length) % LAST.length]
  const city = CITIES[Math.floor(index / (FIRST.length * LAST.length)) % CITIES.length]
  return `From ${first} ${last} in ${city}:`
}

interface Request {
  instruction: string[]
  /** The passage's first word in the corpus. */
  passage: number
}

/**
 * The index's instruction and passage. With r the opening's index and q the repeats of it, the topic is
 * (r + q) mod topics and the task (5r + ⌊q / topics⌋) mod tasks: given r, they say q mod (topics × tasks).
 * The subject, the question and the passage are drawn by the index, each `variant` places further on.
 */
function request(index: number, variant: number, kind: GeneratedPrompts): Request {
  const { topics, tasks, corpus } = SOURCES[kind]
  const r = index % OPENINGS
  const q = Math.floor(index / OPENINGS)
  const topic = (r + q) % topics.length
  const task = (5 * r + Math.floor(q / topics.length)) % tasks.length
  const random = mulberry32(index)
  const pick = <T>(list: readonly T[]) => list[(Math.floor(random() * list.length) + variant) % list.length]
  const source = topics[topic]
  const about = pick(source.about)
  const question = pick(source.questions)
  const instruction = tasks[task].replace('{about}', about).replace('{question}', question)
  return { instruction: instruction.split(' '), passage: pick(corpus().passages[topic]) }
}

/**
 * What each generated kind draws from: `text` everyday prose, `code` short Python functions (code-corpus.ts),
 * `math` word problems with worked solutions (math-corpus.ts), each with its own instructions.
 */
const SOURCES: Record<
  GeneratedPrompts,
  { topics: readonly PromptTopic[]; tasks: readonly string[]; corpus: () => Corpus }
> = {
  text: { topics: TOPICS, tasks: TASKS, corpus: textCorpus },
  code: { topics: CODE_TOPICS, tasks: CODE_TASKS, corpus: codeCorpus },
  math: { topics: MATH_TOPICS, tasks: MATH_TASKS, corpus: mathCorpus },
}

/**
 * Request `index`'s prompt of FIXED_WORDS + `fillerWords` words. `variant` moves the subject, the question and
 * the passage that many places on in the topic's lists (the opening, topic and task stay: they keep the prompt
 * unique). The prompt ends with the letters of its last word, never with punctuation, for the same reason it
 * starts with a fixed word: a chat template whose markers are plain text (`<|im_end|>` in a vocabulary without
 * it) runs on from the prompt's last character, and a full stop there merged with the marker on llama-server
 * (26 tokens more than `/tokenize` counted instead of 27).
 */
export function textPrompt(index: number, fillerWords: number, variant = 0, kind: GeneratedPrompts = 'text'): string {
  const i = Math.abs(Math.trunc(index))
  const n = Math.max(0, Math.trunc(fillerWords))
  const { instruction, passage } = request(i, Math.max(0, Math.trunc(variant)), kind)
  let text = opening(i)
  if (n > 0) text += ' ' + instruction.slice(0, n).join(' ')
  if (n > instruction.length) text += '\n\n' + corpusWords(SOURCES[kind].corpus(), passage, n - instruction.length)
  // Code and arithmetic end in brackets and symbols too: those are cut only after a letter or digit, so a word that
  // is all symbols (`=`, `)`) stays and the count of words holds.
  return kind === 'text' ? text.replace(/[.,:;!?]+$/, '') : text.replace(/(?<=[\p{L}\p{N}])[^\p{L}\p{N}\s]+$/u, '')
}
