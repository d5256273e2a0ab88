/**
 * Prompts of a fixed token cost that are unique per request from their first words on, so no
 * prefix cache (vLLM's automatic prefix caching, SGLang's RadixAttention, a llama.cpp slot's
 * cached prompt) can serve a request from an earlier one and flatter TTFT.
 * A prompt is a fixed lead word, a nonce of NONCE_LENGTH words
 * picked by request index, then filler words. Every word is a common lowercase English word
 * that BPE vocabularies hold as one space-prefixed token, so the nonce costs the same for
 * every index; the filler length is calibrated against the server (calibrate.ts).
 */
import type { Api } from '../../core/plan.js'
import type { EngineAdapter } from '../../engines/types.js'

const NONCE_WORDS = (
  'the of and to in is it that was for on are as with his they at be this from have or by one had not but ' +
  'what all were when we there can an your which their said if do will each about how up out them then she ' +
  'many some so these would other into has more her two like him see'
).split(' ')

const FILLER_WORDS = (
  'time people year way day man thing woman life child world school state family student group country ' +
  'problem hand part place case week company system program question work government number night point ' +
  'home water room mother area money story fact month lot right study book eye job word business issue side ' +
  'kind head house service friend father power hour game line end member law car city community name team ' +
  'minute idea body information back parent face level office door health person art war history party ' +
  'result change morning reason research girl moment air teacher force education'
).split(' ')

export const NONCE_LENGTH = 4
/** Words every prompt carries besides the filler: the lead word and the nonce. */
export const FIXED_WORDS = 1 + NONCE_LENGTH
const LEAD = 'Note'

/** Distinct words by request index; repeats only after 64^4 requests. */
export function nonce(index: number): string {
  const words: string[] = []
  let n = Math.abs(Math.trunc(index))
  for (let i = 0; i < NONCE_LENGTH; i++) {
    words.push(NONCE_WORDS[n % NONCE_WORDS.length])
    n = Math.floor(n / NONCE_WORDS.length)
  }
  return words.join(' ')
}

let fillerCache: { words: number; text: string } | undefined

/** `words` filler words, the same for the same count. */
export function filler(words: number): string {
  if (fillerCache?.words !== words) {
    const parts = new Array<string>(words)
    for (let i = 0; i < words; i++) parts[i] = FILLER_WORDS[i % FILLER_WORDS.length]
    fillerCache = { words, text: parts.join(' ') }
  }
  return fillerCache.text
}

export function promptText(index: number, fillerWords: number): string {
  const tail = fillerWords > 0 ? ` ${filler(fillerWords)}` : ''
  return `${LEAD} ${nonce(index)}${tail}`
}

export interface BodyOptions {
  adapter: EngineAdapter
  api: Api
  model: string
  prompt: string
  maxTokens: number
  /** False lets the model stop at its end-of-sequence token (the quality probe); default true. */
  ignoreEos?: boolean
  /** The target's `request-body`: extra fields, none of OWNED_BODY_FIELDS (core/body-fields.ts). */
  extra?: Readonly<Record<string, unknown>>
  /** The prompt starts with the scenario's shared prefix (`prefix-tokens`): engines that can cache it should. */
  sharedPrefix?: boolean
  /** Chat: the conversation so far, sent instead of one user message of `prompt` (a `turns` scenario). */
  messages?: readonly ChatMessage[]
  /** Chat: the template's `enable_thinking` (`thinking: on | off`), merged into the request body's `chat_template_kwargs`. */
  thinking?: boolean
}

/** One message of a chat conversation (OpenAI chat completions `messages`). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/**
 * `chat_template_kwargs` with `enable_thinking`, over what `request-body` gave it (config/conversation-checks.ts
 * keeps the two from both setting `enable_thinking`). vLLM passes `chat_template_kwargs` to the chat template
 * (vLLM docs, OpenAI-compatible server, chat API extra parameters), as SGLang does; Qwen3-family templates read
 * `enable_thinking` (the Qwen3 model card, "Switching Between Thinking and Non-Thinking Mode").
 */
function thinkingFields(extra: BodyOptions['extra'], thinking: boolean | undefined): Record<string, unknown> {
  if (thinking === undefined) return {}
  const given = extra?.chat_template_kwargs
  const kwargs = given && typeof given === 'object' && !Array.isArray(given) ? given : {}
  return { chat_template_kwargs: { ...kwargs, enable_thinking: thinking } }
}

/**
 * The body every engine gets: streamed, with the token counts in a final usage chunk
 * (`stream_options.include_usage` of the OpenAI API), exactly `maxTokens` generated (`ignore_eos`,
 * an extension vLLM, SGLang and llama-server accept; the quality probe turns it off) and greedy (`temperature: 0`); the
 * target's extra fields under those; then the engine's own fields from its adapter.
 */
export function requestBody(o: BodyOptions): string {
  const common: Record<string, unknown> = {
    ...o.extra,
    model: o.model,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: o.maxTokens,
    ignore_eos: o.ignoreEos ?? true,
    temperature: 0,
  }
  const messages = o.messages ?? [{ role: 'user', content: o.prompt }]
  const body =
    o.api === 'chat'
      ? { ...common, messages, max_completion_tokens: o.maxTokens, ...thinkingFields(o.extra, o.thinking) }
      : { ...common, prompt: o.prompt }
  return JSON.stringify(o.adapter.transformRequest(body, o.api, o.sharedPrefix ? { sharedPrefix: true } : undefined))
}
