/**
 * The simulator's tokenizer: one token per whitespace-separated word, so a client can build a
 * prompt of an exact length without a real vocabulary.
 *
 * Chat prompts add a fixed template overhead, as real chat templates do:
 * CHAT_TOKENS_PER_MESSAGE (4: role header and end markers) per message plus CHAT_TOKENS_REPLY
 * (3: the assistant header that primes the reply). One user message of N words is N + 7 tokens.
 * Generated tokens are words too (` word` with a leading space), so generated text re-counts
 * to `completion_tokens`.
 */

export const CHAT_TOKENS_PER_MESSAGE = 4
export const CHAT_TOKENS_REPLY = 3
/** Id range for word tokens (a Qwen-sized vocabulary); template tokens sit above it. */
const VOCAB_IDS = 151643
const TEMPLATE_ID = 151644

export function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w.length > 0)
}

/** Same as JavaScript's `\s`. */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 160 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

/** `words(text).length` without building the words: a 100K-word prompt is counted in about a millisecond. */
export function countWords(text: string): number {
  let count = 0
  let inWord = false
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i))
    if (!space && !inWord) count++
    inWord = !space
  }
  return count
}

function wordId(word: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % VOCAB_IDS
}

/** Completions `prompt`: a string, a one-element list of strings, or token ids. */
export function promptIds(prompt: unknown): number[] | undefined {
  if (typeof prompt === 'string') return words(prompt).map(wordId)
  if (Array.isArray(prompt)) {
    if (prompt.every((p) => Number.isInteger(p))) return prompt as number[]
    if (prompt.length === 1) return promptIds(prompt[0])
  }
  return undefined
}

/** Token count of a completions `prompt` (same rules as `promptIds`). */
export function promptTokens(prompt: unknown): number | undefined {
  if (typeof prompt === 'string') return countWords(prompt)
  if (Array.isArray(prompt)) {
    if (prompt.every((p) => Number.isInteger(p))) return prompt.length
    if (prompt.length === 1) return promptTokens(prompt[0])
  }
  return undefined
}

/** The text of a chat message's `content`: a string or text parts; undefined for any other shape. */
export function contentText(content: unknown): string | undefined {
  if (content === null || content === undefined) return ''
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const parts: string[] = []
  for (const part of content) {
    if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string')
      parts.push((part as { text: string }).text)
  }
  return parts.join(' ')
}

/** Chat `messages` through the fixed template; undefined when the shape is not a message list. */
export function chatIds(messages: unknown): number[] | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return undefined
  const ids: number[] = []
  for (const m of messages) {
    if (!m || typeof m !== 'object') return undefined
    const text = contentText((m as { content?: unknown }).content)
    if (text === undefined) return undefined
    ids.push(...Array<number>(CHAT_TOKENS_PER_MESSAGE).fill(TEMPLATE_ID), ...words(text).map(wordId))
  }
  ids.push(...Array<number>(CHAT_TOKENS_REPLY).fill(TEMPLATE_ID))
  return ids
}

/** Token count of chat `messages` through the template (same rules as `chatIds`). */
export function chatTokens(messages: unknown): number | undefined {
  if (!Array.isArray(messages) || messages.length === 0) return undefined
  let count = CHAT_TOKENS_REPLY
  for (const m of messages) {
    const text = m && typeof m === 'object' ? contentText((m as { content?: unknown }).content) : undefined
    if (text === undefined) return undefined
    count += CHAT_TOKENS_PER_MESSAGE + countWords(text)
  }
  return count
}

/**
 * Words the simulator generates: common English words, enough of them that the generated text
 * reads as varied to the degenerate-output checks (distinct words, deflate ratio), as a real
 * model's text does.
 */
const VOCAB = (
  'the of and to in is that for it as with was on be by this are from at or an which not have has one can all ' +
  'were their more its also been when into than other some time these only most over such would about there after ' +
  'two first new made used between people year way day man thing woman life child world school state family ' +
  'student group country problem hand part place case week company system program question work government number ' +
  'night point home water room mother area money story fact month lot right study book eye job word business issue ' +
  'side kind head house service friend father power hour game line end member law car city community name team ' +
  'minute idea body information back parent face level office door health person art war history party result ' +
  'change morning reason research girl moment air teacher force education river garden window market village ' +
  'bridge island summer winter letter music picture paper table road train field forest light voice ' +
  'answer season station machine engine signal harbour valley mountain kitchen library museum doctor ' +
  'farmer writer painter builder driver pilot captain keeper lamp tower ship coast storm cloud stone ' +
  'small large early late quiet bright dark warm cold young old careful simple strong gentle ' +
  'walks builds writes reads carries opens closes finds keeps brings shows turns follows begins ' +
  'slowly quickly often rarely always together again almost perhaps'
).split(' ')

/** Murmur3's 32-bit finaliser: spreads every input bit over the result. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** The `index`-th generated token of the reply seeded by `stream`: deterministic text, one space-led word each. */
export function generatedWord(stream: number, index: number): string {
  return ' ' + VOCAB[mix((stream ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0) % VOCAB.length]
}
