/**
 * SGLang (`sglang.launch_server`). The HTTP port is up during load and `/health` answers 503
 * until the model is ready. Version and spec-decode acceptance come from the server-info
 * document (`/get_server_info`, renamed `/server_info` in newer releases).
 */
import type { SpecDecodeStats } from '../core/results.js'
import { asRecord, getJson, pick } from './http.js'
import { postReset } from './cache-reset.js'
import { joinUrl } from '../core/url.js'
import { openaiPath, tokenizePrompt } from './openai.js'
import { gaugeAcceptance } from './round-acceptance.js'
import { SGLANG_SERIES } from './server-series.js'
import type { EngineAdapter, HttpPorts } from './types.js'

const ACCEPT_LENGTH = 'avg_spec_accept_length'

const SERVER_FACTS = [
  'model_path',
  'served_model_name',
  'tp_size',
  'dp_size',
  'context_length',
  'quantization',
  'kv_cache_dtype',
  'mem_fraction_static',
  'chunked_prefill_size',
  'attention_backend',
  'speculative_algorithm',
  'speculative_num_steps',
  'speculative_eagle_topk',
  'speculative_num_draft_tokens',
] as const

async function serverInfo(http: HttpPorts, baseUrl: string): Promise<Record<string, unknown> | undefined> {
  for (const path of ['/get_server_info', '/server_info']) {
    const doc = asRecord(await getJson(http, joinUrl(baseUrl, path)).catch(() => undefined))
    if (doc) return doc
  }
  return undefined
}

/** Prefill/decode disaggregation nests the decode server's document under `decode[0]`. */
function acceptLength(doc: Record<string, unknown>): number | undefined {
  const decode = Array.isArray(doc.decode) ? asRecord(doc.decode[0]) : undefined
  const states = (decode ?? doc).internal_states
  const value = Array.isArray(states) ? asRecord(states[0])?.[ACCEPT_LENGTH] : undefined
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined
}

/**
 * SGLang only exposes the running average since server start (cum length / cum steps),
 * not the two sums, so a cell's own acceptance cannot be recovered from two readings.
 * The value is reported as what it is, labelled cumulative.
 */
function specDecode(after: Record<string, number> | undefined): SpecDecodeStats | undefined {
  const length = after?.[ACCEPT_LENGTH]
  if (length === undefined) return undefined
  return {
    acceptanceLength: length,
    source: 'sglang server info avg_spec_accept_length (cumulative since server start)',
  }
}

export const sglang: EngineAdapter = {
  name: 'sglang',
  needsLaunchOrUrl: true,
  serverSeries: SGLANG_SERIES,
  healthPath: '/health',
  // 503 while loading (and while shutting down); connection refused before the HTTP server is up.
  readiness: (answer) => (answer.status === 200 ? 'ready' : 'loading'),
  path: openaiPath,
  transformRequest: (body) => ({ ...body }),
  tokenize: tokenizePrompt,

  async info(http, baseUrl) {
    const doc = await serverInfo(http, baseUrl).catch(() => undefined)
    if (!doc) return {}
    const version = typeof doc.version === 'string' ? doc.version : undefined
    const server = pick(doc, SERVER_FACTS)
    return { ...(version ? { version } : {}), ...(Object.keys(server).length ? { server } : {}) }
  },

  async counters(http, baseUrl) {
    const doc = await serverInfo(http, baseUrl).catch(() => undefined)
    const length = doc ? acceptLength(doc) : undefined
    return length === undefined ? undefined : { [ACCEPT_LENGTH]: length }
  },

  resetPrefixCache: (http, baseUrl) => postReset(http, baseUrl, 'sglang', '/flush_cache'),

  roundAcceptance: (server) => gaugeAcceptance(server, 'sglang:spec_accept_length'),
  specDecode: (_before, after) => specDecode(after),
}
