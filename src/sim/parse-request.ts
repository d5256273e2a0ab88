/** Parses a `/v1/completions` or `/v1/chat/completions` body the way vLLM validates it. */
import type { Api } from '../core/plan.js'
import { chatIds, contentText, promptIds } from './tokenizer.js'

export interface GenerateRequest {
  api: Api
  model: string
  promptTokens: number
  /** The prompt's token ids, as the simulator's tokenizer makes them (the prefix cache's key). */
  ids: number[]
  /** The prompt's text (chat: every message's content, one per line); empty for a prompt of token ids. */
  text: string
  maxTokens: number
  stream: boolean
  /** `ignore_eos` unless the body says `false`: the reply runs to `maxTokens` without stopping. */
  ignoreEos: boolean
  includeUsage: boolean
  /** Cumulative usage on every chunk (vLLM `stream_options.continuous_usage_stats`). */
  continuousUsage: boolean
}

export class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly type = 'BadRequestError',
  ) {
    super(message)
  }
}

/** vLLM's completions default; chat has no default there (rest of the context), capped here. */
const DEFAULT_MAX_TOKENS: Record<Api, number> = { completions: 16, chat: 1024 }

function positiveInt(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new BadRequest(`${field} must be a positive integer, got ${JSON.stringify(value)}`)
  return value
}

function promptText(api: Api, b: Record<string, unknown>): string {
  if (api === 'chat') return (b.messages as { content?: unknown }[]).map((m) => contentText(m.content) ?? '').join('\n')
  const prompt = Array.isArray(b.prompt) && b.prompt.length === 1 ? b.prompt[0] : b.prompt
  return typeof prompt === 'string' ? prompt : ''
}

export function parseGenerate(api: Api, body: unknown, servedModel: string, maxModelLen: number): GenerateRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new BadRequest('request body must be a JSON object')
  const b = body as Record<string, unknown>
  const ids = api === 'chat' ? chatIds(b.messages) : promptIds(b.prompt)
  const prompt = ids?.length
  if (prompt === undefined)
    throw new BadRequest(
      api === 'chat'
        ? 'messages must be a non-empty list of {role, content}'
        : 'prompt must be a string, a one-element list of strings, or a list of token ids',
    )
  if (b.n !== undefined && b.n !== 1) throw new BadRequest('the simulator supports n = 1 only')
  const requested =
    positiveInt(b.max_completion_tokens, 'max_completion_tokens') ?? positiveInt(b.max_tokens, 'max_tokens')
  const maxTokens = requested ?? Math.max(1, Math.min(DEFAULT_MAX_TOKENS[api], maxModelLen - prompt))
  if (prompt + maxTokens > maxModelLen) {
    throw new BadRequest(
      `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${prompt + maxTokens} tokens ` +
        `(${prompt} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
    )
  }
  const options = (b.stream_options ?? {}) as Record<string, unknown>
  const stream = b.stream === true
  return {
    api,
    model: typeof b.model === 'string' && b.model ? b.model : servedModel,
    promptTokens: prompt,
    ids: ids!,
    text: promptText(api, b),
    maxTokens,
    stream,
    ignoreEos: b.ignore_eos !== false,
    includeUsage: stream && options.include_usage === true,
    continuousUsage: stream && options.include_usage === true && options.continuous_usage_stats === true,
  }
}
