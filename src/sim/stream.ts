/**
 * vLLM's OpenAI dialect, chunk by chunk (vLLM's `chat_completion_stream_generator` and
 * `completion_stream_generator` under `vllm/entrypoints/openai/`): completions chunks carry
 * `text`; chat starts with a role-only delta written together with the first token; the last
 * token chunk has `finish_reason` (`length`, or `stop` at end of sequence); with `include_usage` a final chunk has
 * `choices: []` and the usage; then `data: [DONE]`.
 */
import type { ReplyLength } from './reply.js'
import type { GenerateRequest } from './parse-request.js'

export interface Usage {
  prompt_tokens: number
  total_tokens: number
  completion_tokens: number
}

export function usage(prompt: number, completion: number): Usage {
  return { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion }
}

export function sse(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`
}

export const DONE = 'data: [DONE]\n\n'

/** Builds the frames of one streamed reply. */
export class ReplyWriter {
  private readonly created = Math.floor(Date.now() / 1000)
  private readonly object: string
  private generated = 0

  constructor(
    private readonly request: GenerateRequest,
    private readonly id: string,
    private readonly finish: 'stop' | 'length',
  ) {
    this.object = request.api === 'chat' ? 'chat.completion.chunk' : 'text_completion'
  }

  private frame(choices: unknown[], extra: Record<string, unknown> = {}): string {
    return sse({
      id: this.id,
      object: this.object,
      created: this.created,
      model: this.request.model,
      choices,
      ...extra,
    })
  }

  private continuous(): Record<string, unknown> {
    return this.request.continuousUsage ? { usage: usage(this.request.promptTokens, this.generated) } : {}
  }

  /** Frames for `tokens` new tokens whose text is `text`; `first` adds the chat role prelude. */
  tokens(text: string, tokens: number, first: boolean, last: boolean): string {
    let out = ''
    if (first && this.request.api === 'chat')
      out += this.frame(
        [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
        this.continuous(),
      )
    this.generated += tokens
    const finish = last ? this.finish : null
    const choice =
      this.request.api === 'chat'
        ? { index: 0, delta: { content: text }, logprobs: null, finish_reason: finish }
        : { index: 0, text, logprobs: null, finish_reason: finish, stop_reason: null }
    return out + this.frame([choice], this.continuous())
  }

  /** Usage chunk (when asked for) and the terminator. */
  end(): string {
    return (
      (this.request.includeUsage ? this.frame([], { usage: usage(this.request.promptTokens, this.generated) }) : '') +
      DONE
    )
  }
}

/** A whole non-streamed reply of `length.tokens` tokens. */
export function fullReply(
  request: GenerateRequest,
  id: string,
  text: string,
  length: ReplyLength,
): Record<string, unknown> {
  const { finish } = length
  const base = {
    id,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    usage: usage(request.promptTokens, length.tokens),
  }
  if (request.api === 'chat') {
    return {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: finish }],
    }
  }
  return {
    ...base,
    object: 'text_completion',
    choices: [{ index: 0, text, logprobs: null, finish_reason: finish, stop_reason: null }],
  }
}
