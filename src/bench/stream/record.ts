/** Turns a finished stream into its `RequestRecord`: times from the send, the server's counts (or chunk counts when it sent none). */
import type { StreamOutcome } from './request.js'
import type { RequestRecord } from '../../core/measurements.js'
import { checkDegenerate } from '../../quality/index.js'

export interface RecordContext {
  index: number
  queueMs: number
  /** Prompt length we built for, used only when the server reports no usage. */
  expectedPromptTokens: number
}

export function toRecord(ctx: RecordContext, outcome: StreamOutcome): RequestRecord {
  const t = outcome.tally
  // A completion count of 0 next to streamed tokens is no count at all (vLLM falls back the same way).
  const reported = t.completionTokens !== undefined && !(t.completionTokens === 0 && t.chunks > 0)
  const record: RequestRecord = {
    index: ctx.index,
    ok: outcome.error === undefined && t.firstTokenAt !== undefined,
    queueMs: ctx.queueMs,
    sentAt: outcome.sentAt,
    ttftMs: t.firstTokenAt === undefined ? 0 : t.firstTokenAt - outcome.sentAt,
    e2eMs: t.lastTokenAt === undefined ? 0 : t.lastTokenAt - outcome.sentAt,
    promptTokens: t.promptTokens ?? ctx.expectedPromptTokens,
    outputTokens: reported ? (t.completionTokens as number) : t.chunks,
    usageReported: reported,
    itlMs: t.itl,
    chunks: t.chunks,
  }
  if (outcome.error) {
    record.error = outcome.error.message
    record.errorKind = outcome.error.kind
  }
  if (record.ok) record.output = checkDegenerate(t.sample)
  if (t.firstEventAt !== undefined) record.firstEventMs = t.firstEventAt - outcome.sentAt
  if (t.ttftEvent !== undefined) record.ttftEvent = t.ttftEvent
  if (t.extras) record.extras = t.extras
  if (outcome.retried) record.retried = true
  if (outcome.prompt !== undefined) record.prompt = outcome.prompt
  return record
}
