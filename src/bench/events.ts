/**
 * What one SSE event of an OpenAI-compatible stream tells us (engines.md §1–§4 dialects):
 * whether it carries generated text, the server's token counts, llama.cpp draft counters,
 * or an in-band error. Pure: no clock, no I/O.
 */

export interface Usage {
  promptTokens?: number
  completionTokens?: number
}

export interface EventFacts {
  /** Carries generated text: completions `text`, chat `content`, `reasoning_content`, `reasoning` or `tool_calls`. */
  token: boolean
  usage?: Usage
  /** llama.cpp `timings.draft_n` / `draft_n_accepted` (final event of a speculative request). */
  draft?: { drafted: number; accepted: number }
  /** In-band error (`data: {"error": …}` or an `object: "error"` body). */
  error?: string
}

const EXCERPT = 200

export function excerpt(text: string, limit = EXCERPT): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' ? value.length > 0 : Array.isArray(value) && value.length > 0
}

/** A role-only or empty chunk is not a token (SPEC §5); neither is a finish chunk with `delta: {}`. */
function choiceHasToken(choice: unknown): boolean {
  if (typeof choice !== 'object' || choice === null) return false
  const c = choice as { text?: unknown; delta?: Record<string, unknown> | null }
  if (nonEmpty(c.text)) return true
  const d = c.delta
  if (typeof d !== 'object' || d === null) return false
  return nonEmpty(d.content) || nonEmpty(d.reasoning_content) || nonEmpty(d.reasoning) || nonEmpty(d.tool_calls)
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

function readDraft(raw: unknown): EventFacts['draft'] {
  if (typeof raw !== 'object' || raw === null) return undefined
  const t = raw as Record<string, unknown>
  const drafted = count(t.draft_n)
  if (drafted === undefined) return undefined
  return { drafted, accepted: count(t.draft_n_accepted) ?? 0 }
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
  const usage = readUsage(o.usage)
  if (usage) facts.usage = usage
  const draft = readDraft(o.timings)
  if (draft) facts.draft = draft
  return facts
}
