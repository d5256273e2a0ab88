/**
 * What one SSE event of an OpenAI-compatible stream (vLLM, SGLang, llama.cpp and servers like
 * them) tells us: whether it carries generated text, the server's token counts, or an in-band
 * error. Fields only one engine sends are read by its adapter (EngineAdapter.streamExtras).
 * Pure: no clock, no I/O.
 */

export interface Usage {
  promptTokens?: number
  completionTokens?: number
}

export interface EventFacts {
  /** Carries generated text: completions `text`, chat `content`, `reasoning_content`, `reasoning` or `tool_calls`. */
  token: boolean
  usage?: Usage
  /** In-band error (`data: {"error": …}` or an `object: "error"` body). */
  error?: string
  /** The generated text the event carries (completions `text`, chat `content`, reasoning), when any. */
  text?: string
  /** The answer's part of it, reasoning left out (completions `text`, chat `content`): what a conversation keeps. */
  answer?: string
}

const EXCERPT = 200

export function excerpt(text: string, limit = EXCERPT): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' ? value.length > 0 : Array.isArray(value) && value.length > 0
}

/**
 * A role-only or empty chunk is not a token, nor is a finish chunk with `delta: {}`: chat streams
 * open with a role delta, and llama.cpp sends one with prompt-progress updates before any token.
 */
function choiceHasToken(choice: unknown): boolean {
  if (typeof choice !== 'object' || choice === null) return false
  const c = choice as { text?: unknown; delta?: Record<string, unknown> | null }
  if (nonEmpty(c.text)) return true
  const d = c.delta
  if (typeof d !== 'object' || d === null) return false
  return nonEmpty(d.content) || nonEmpty(d.reasoning_content) || nonEmpty(d.reasoning) || nonEmpty(d.tool_calls)
}

/** The text of every choice's `text`, `content`, `reasoning_content` and `reasoning`, joined. */
function choiceText(choices: readonly unknown[]): string {
  let text = ''
  for (const choice of choices) {
    if (typeof choice !== 'object' || choice === null) continue
    const c = choice as { text?: unknown; delta?: Record<string, unknown> | null }
    const d = typeof c.delta === 'object' && c.delta !== null ? c.delta : {}
    for (const part of [c.text, d.content, d.reasoning_content, d.reasoning]) if (typeof part === 'string') text += part
  }
  return text
}

/**
 * The text of every choice's `text` and `content`, without `reasoning_content` or `reasoning`: Qwen3's model card
 * keeps only the final answer of an earlier turn in the history, not its thinking.
 */
function answerText(choices: readonly unknown[]): string {
  let text = ''
  for (const choice of choices) {
    if (typeof choice !== 'object' || choice === null) continue
    const c = choice as { text?: unknown; delta?: Record<string, unknown> | null }
    const d = typeof c.delta === 'object' && c.delta !== null ? c.delta : {}
    for (const part of [c.text, d.content]) if (typeof part === 'string') text += part
  }
  return text
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

function readUsage(raw: unknown): Usage | undefined {
  // `"usage": null` rides on every SGLang chunk and older vLLM chunks: not a count.
  if (typeof raw !== 'object' || raw === null) return undefined
  const u = raw as Record<string, unknown>
  const usage: Usage = { promptTokens: count(u.prompt_tokens), completionTokens: count(u.completion_tokens) }
  return usage.promptTokens === undefined && usage.completionTokens === undefined ? undefined : usage
}

/** The message of an error payload, whatever shape the engine gave it. */
export function errorText(raw: unknown): string {
  if (typeof raw === 'string') return excerpt(raw)
  if (typeof raw === 'object' && raw !== null) {
    const e = raw as Record<string, unknown>
    if (typeof e.message === 'string') return excerpt(e.message)
    if (typeof e.error === 'object' || typeof e.error === 'string') return errorText(e.error)
  }
  return excerpt(JSON.stringify(raw) ?? String(raw))
}

export function inspectEvent(json: unknown): EventFacts {
  if (typeof json !== 'object' || json === null) return { token: false }
  const o = json as Record<string, unknown>
  if ((o.error !== undefined && o.error !== null) || o.object === 'error') {
    return { token: false, error: errorText(o.error ?? o) }
  }
  const facts: EventFacts = { token: Array.isArray(o.choices) && o.choices.some(choiceHasToken) }
  if (facts.token) {
    facts.text = choiceText(o.choices as unknown[])
    facts.answer = answerText(o.choices as unknown[])
  }
  const usage = readUsage(o.usage)
  if (usage) facts.usage = usage
  return facts
}
