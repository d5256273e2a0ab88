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
  return c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
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

function contentText(content: unknown): string | undefined {
  if (content === null || content === undefined) return ''
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const parts: string[] = []
  for (const part of content) {
    if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') parts.push((part as { text: string }).text)
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

const VOCAB = 'the of and to in is that for it as with was on be by this are from at or an which not have has one can all were their more its also been when into than other some time these only most over such would about there after two first new made used between'.split(' ')

/** The `index`-th generated token of request `request`: deterministic text, one word each. */
export function generatedWord(request: number, index: number): string {
  return ' ' + VOCAB[((Math.imul(request + 1, 2654435761) + index * 7) >>> 0) % VOCAB.length]
}
