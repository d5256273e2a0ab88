/**
 * A round of conversations (`turns`): `requests` conversations, at most `concurrency` in flight, each sending its
 * `turns` chat requests one after another. Turn 1 is one user message of `input-tokens`; every later turn resends
 * the conversation so far with the previous answer appended as the assistant's message and a new user message of
 * `turn-tokens`, as a chat client does, so the prompt grows and every turn's prefix is the previous turn's prompt:
 * what a prefix cache (vLLM's automatic prefix caching, SGLang's RadixAttention, a llama.cpp slot's cached prompt)
 * should serve. A conversation draws all its user messages when it starts, so conversation k of a round gets the
 * same messages in every run. A turn that fails ends its conversation: the next would resend a broken history.
 */
import type { RequestRecord } from '../../core/measurements.js'
import type { ChatMessage } from '../prompts/prompt.js'
import type { Calibration } from '../prompts/calibrate.js'
import { toRecord } from '../stream/record.js'
import type { StreamOutcome } from '../stream/request.js'
import { closedLoop } from '../stream/schedule.js'
import type { RoundRun } from './run-round.js'

export interface ConversationSource {
  /** The cell's next unique user message of `fillerWords` filler words. */
  message: (fillerWords: number) => string
  /** The calibration of a later turn's user message (`turn-tokens`); the round's own is the first turn's. */
  turn: Calibration
  /** Streams the conversation so far as one chat request, keeping the answer's text. */
  send: (messages: readonly ChatMessage[], maxTokens: number, signal?: AbortSignal) => Promise<StreamOutcome>
}

export async function runConversations(o: RoundRun, source: ConversationSource): Promise<RequestRecord[]> {
  const { scenario } = o
  const turns = scenario.turns ?? 1
  let done = 0
  let errors = 0
  let tokens = 0
  let firstSend = Infinity
  // Every turn counts as it ends, as a request of a plain round does (run-round.ts): requests, failures, tok/s.
  const counted = (r: RequestRecord) => {
    done++
    if (r.ok) tokens += r.outputTokens
    else errors++
    firstSend = Math.min(firstSend, r.sentAt)
  }
  const report = () =>
    o.progress?.(done, errors, firstSend < Infinity ? (tokens * 1000) / (performance.now() - firstSend) : 0)
  const ticker = o.progress ? setInterval(report, o.progressIntervalMs) : undefined
  ticker?.unref()
  const one = async (i: number, dueAt: number): Promise<RequestRecord[]> => {
    const texts = Array.from({ length: turns }, (_, t) =>
      source.message(t === 0 ? o.calibration.fillerWords : source.turn.fillerWords),
    )
    return converse(o, source, texts, { first: (o.round * scenario.requests + i) * turns, dueAt, counted })
  }
  try {
    return (await closedLoop(scenario.requests, scenario.concurrency, one, o.signal)).flat()
  } finally {
    if (ticker) clearInterval(ticker)
  }
}

/** One conversation's turns; each later turn is due when the previous one ended. */
async function converse(
  o: RoundRun,
  source: ConversationSource,
  texts: readonly string[],
  at: { first: number; dueAt: number; counted: (record: RequestRecord) => void },
): Promise<RequestRecord[]> {
  const { scenario } = o
  const messages: ChatMessage[] = []
  const records: RequestRecord[] = []
  let due = at.dueAt
  let previous: RequestRecord | undefined
  for (const [t, text] of texts.entries()) {
    if (o.signal?.aborted) break
    messages.push({ role: 'user', content: text })
    const outcome = await source.send([...messages], scenario.outputTokens, o.signal)
    // Without usage the prompt is estimated: the first turn's calibrated length, and per later turn an answer and a message.
    const expected = o.calibration.promptTokens + t * (scenario.outputTokens + source.turn.promptTokens)
    const record = toRecord(
      { index: at.first + t, queueMs: outcome.sentAt - due, expectedPromptTokens: expected },
      outcome,
    )
    record.turn = t + 1
    if (previous?.usageReported && record.ok && record.usageReported)
      record.addedTokens = record.promptTokens - previous.promptTokens
    records.push(record)
    at.counted(record)
    if (!record.ok) break
    messages.push({ role: 'assistant', content: outcome.tally.answer ?? '' })
    previous = record
    due = performance.now()
  }
  return records
}
