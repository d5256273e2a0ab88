/**
 * The corpus `prompts: text` draws its passages from: ordinary prose on everyday topics, generated here from
 * sentence templates and word lists (text-topics-*.ts) with a fixed seed, so it is the same in every run and on
 * every machine, and holds no downloaded or copied text. A passage is PASSAGE_SENTENCES sentences of one topic,
 * no template twice; passages are grouped by topic, so a prompt longer than one passage reads on into the same
 * topic's next passages before it reaches the next topic, and past the end it starts again from the first.
 */
import { mulberry32 } from '../../core/random.js'
import { HOME_TOPICS } from './text-topics-home.js'
import { WORLD_TOPICS } from './text-topics-world.js'

/** What an instruction can say of a topic's passages (text-prompt.ts), whatever the passages hold. */
export interface PromptTopic {
  name: string
  /** Noun phrases an instruction can name the passage by ("notes about {about}"). */
  about: readonly string[]
  /** Questions an instruction can ask about the passage. */
  questions: readonly string[]
}

export interface TopicSource extends PromptTopic {
  sentences: readonly string[]
  /** Word lists by slot name, values `|`-separated. */
  slots: Readonly<Record<string, string>>
}

export const TOPICS: readonly TopicSource[] = [...HOME_TOPICS, ...WORLD_TOPICS]
export const PASSAGES_PER_TOPIC = 12
export const PASSAGE_SENTENCES = 7
const SEED = 0x7e47

export interface Corpus {
  /** Every passage, separated by a blank line. */
  text: string
  /** Character offsets of each whitespace-separated word's start and end in `text`. */
  starts: Int32Array
  ends: Int32Array
  /** First word of each topic's passages: `passages[topic][k]`. */
  passages: number[][]
}

const SLOT = /\{([a-z]+)(\d?)\}/g

/** One sentence of a template: each slot filled, a slot of the same list twice with two different values. */
function sentence(template: string, topic: TopicSource, random: () => number): string {
  const used = new Map<string, string[]>()
  const filled = template.replace(SLOT, (_, slot: string) => {
    const list = topic.slots[slot]?.split('|')
    if (!list) throw new Error(`text corpus: topic ${topic.name} has no word list "${slot}"`)
    const taken = used.get(slot) ?? []
    const free = list.filter((v) => !taken.includes(v))
    const value = free[Math.floor(random() * free.length)]
    used.set(slot, [...taken, value])
    return value
  })
  return filled.charAt(0).toUpperCase() + filled.slice(1)
}

function passage(topic: TopicSource, random: () => number): string {
  const order = topic.sentences.map((_, i) => i)
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  return order
    .slice(0, PASSAGE_SENTENCES)
    .map((i) => sentence(topic.sentences[i], topic, random))
    .join(' ')
}

/** The corpus from its sources: the same text for the same sources. */
export function buildCorpus(topics: readonly TopicSource[] = TOPICS): Corpus {
  const random = mulberry32(SEED)
  return corpusOf(topics.map((topic) => Array.from({ length: PASSAGES_PER_TOPIC }, () => passage(topic, random))))
}

/** A corpus of passages grouped by topic, a blank line between passages; words are what whitespace separates. */
export function corpusOf(byTopic: readonly (readonly string[])[]): Corpus {
  const text = byTopic.flat().join('\n\n')
  const starts: number[] = []
  const ends: number[] = []
  for (const m of text.matchAll(/\S+/g)) {
    starts.push(m.index)
    ends.push(m.index + m[0].length)
  }
  let word = 0
  const passages = byTopic.map((texts) =>
    texts.map((t) => {
      const first = word
      word += t.match(/\S+/g)?.length ?? 0
      return first
    }),
  )
  return { text, starts: Int32Array.from(starts), ends: Int32Array.from(ends), passages }
}

let built: Corpus | undefined

/** The shipped corpus, built on first use. */
export function textCorpus(): Corpus {
  built ??= buildCorpus()
  return built
}

/**
 * `count` words of the corpus from word `first` on, as they stand in it (spaces within a passage, a blank line
 * between passages), going round to the start again past the end.
 */
export function corpusWords(c: Corpus, first: number, count: number): string {
  const total = c.starts.length
  const parts: string[] = []
  let at = first % total
  for (let left = Math.max(0, Math.trunc(count)); left > 0;) {
    const take = Math.min(left, total - at)
    parts.push(c.text.slice(c.starts[at], c.ends[at + take - 1]))
    left -= take
    at = 0
  }
  return parts.join('\n\n')
}
