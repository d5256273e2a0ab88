/**
 * Emptying an engine's prefix cache before a cell's cold round, over the endpoint each engine serves:
 * - vLLM: `POST /reset_prefix_cache` (vllm/entrypoints/serve/cache/api_router.py, formerly in
 *   vllm/entrypoints/openai/api_server.py), served only with `VLLM_SERVER_DEV_MODE=1` (a 404 otherwise); 200 when
 *   done, and in newer releases 409 while running requests hold cached blocks.
 * - SGLang: `POST /flush_cache` (sglang/srt/entrypoints/http_server.py): 200 when flushed, 400 while requests run
 *   or wait.
 * - llama.cpp: `POST /slots/{id}?action=erase` for each of `/props`' `total_slots` (tools/server/README.md). Every
 *   slot action, erase included, needs the server started with `--slot-save-path`: without it llama-server (b10470)
 *   answers 501 "This server does not support slots action. Start it with `--slot-save-path`".
 * A 404 or 405 means the engine does not serve the endpoint; any other refusal is named with its status and the
 * first words of its answer. Every call is bounded in time and none throws.
 */
import type { PrefixCacheReset } from '../core/results.js'
import { joinUrl } from '../core/url.js'
import { asRecord, getJson } from './http.js'
import type { HttpPorts, ProbeAnswer } from './types.js'

/** One reset call's bound: an engine that is up answers in milliseconds. */
export const RESET_TIMEOUT_MS = 10_000
/** Slots erased at most (llama.cpp `-np`); a server with more is reported as not reset. */
export const MAX_SLOTS = 256
/** Characters of an engine's answer a reason keeps. */
const MAX_ANSWER_CHARS = 200

/** The first words of an answer: a JSON error's message (`error.message`, `detail`), else its text, on one line. */
export function answerText(body: string): string {
  let text = body
  try {
    const doc = asRecord(JSON.parse(body))
    const message = asRecord(doc?.error)?.message ?? doc?.detail
    if (typeof message === 'string') text = message
  } catch {
    // Not JSON: the text as it came.
  }
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > MAX_ANSWER_CHARS ? `${line.slice(0, MAX_ANSWER_CHARS)}…` : line
}

/** What an answer to the reset request `via` says: done on 2xx; otherwise why not, `hint` added to a 404 or 405. */
export function resetOutcome(engine: string, via: string, answer: ProbeAnswer, hint?: string): PrefixCacheReset {
  if (answer.status >= 200 && answer.status < 300) return { reset: true, via }
  const text = answerText(answer.body)
  if (answer.status === 0) return { reset: false, reason: `${engine}: no answer to ${via}${text ? ` (${text})` : ''}` }
  const notServed = answer.status === 404 || answer.status === 405
  const why = notServed
    ? `${engine} offers no reset here: ${via} answered ${answer.status}`
    : `${engine} answered ${answer.status} to ${via}`
  return { reset: false, reason: `${why}${notServed && hint ? ` (${hint})` : ''}${text ? `: ${text}` : ''}` }
}

/** `POST <path>` with an empty JSON body, judged by `resetOutcome`. */
export async function postReset(
  http: HttpPorts,
  baseUrl: string,
  engine: string,
  path: string,
  hint?: string,
): Promise<PrefixCacheReset> {
  const answer = await http
    .post(joinUrl(baseUrl, path), {}, RESET_TIMEOUT_MS)
    .catch((error: unknown) => ({ status: 0, body: String((error as Error)?.message ?? error) }))
  return resetOutcome(engine, `POST ${path}`, answer, hint)
}

/** llama.cpp: every slot erased (their count from `/props`), or the first refusal. */
export async function eraseSlots(http: HttpPorts, baseUrl: string): Promise<PrefixCacheReset> {
  const props = asRecord(await getJson(http, joinUrl(baseUrl, '/props'), RESET_TIMEOUT_MS))
  const total = props?.total_slots
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 1)
    return { reset: false, reason: 'llamacpp: /props gave no total_slots, so no slot was erased' }
  if (total > MAX_SLOTS)
    return { reset: false, reason: `llamacpp: ${total} slots, more than the ${MAX_SLOTS} erased at most` }
  const outcomes = await Promise.all(
    Array.from({ length: total }, (_, id) => postReset(http, baseUrl, 'llamacpp', `/slots/${id}?action=erase`)),
  )
  return outcomes.find((o) => !o.reset) ?? { reset: true, via: `POST /slots/{0…${total - 1}}?action=erase` }
}
