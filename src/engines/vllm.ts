/**
 * vLLM (`vllm serve`). While the model loads the socket is bound but not listening, so the
 * probe sees connection refused; `/health` then answers 200, and 503 when the engine died
 * (EngineDeadError). Behind a proxy it answers 503 while loading too, so before its first 200
 * a 503 is "still loading" and only the process's exit ends the wait.
 */
import { INFO_TIMEOUT_MS, asRecord, getJson } from './http.js'
import { postReset } from './cache-reset.js'
import { joinUrl } from '../core/url.js'
import { modelsInfo, openaiPath, readyOn200, tokenizePrompt } from './openai.js'
import { VLLM_COUNTER_NAMES, VLLM_DRAFT_COUNTERS, sumByName, vllmSpecDecode } from './prometheus.js'
import { countedAcceptance } from './round-acceptance.js'
import { VLLM_SERIES } from './server-series.js'
import type { EngineAdapter } from './types.js'

export const vllm: EngineAdapter = {
  name: 'vllm',
  needsLaunchOrUrl: true,
  serverSeries: VLLM_SERIES,
  healthPath: '/health',
  readiness: readyOn200,
  path: openaiPath,
  // ignore_eos, temperature and stream_options are common; vLLM needs nothing more.
  transformRequest: (body) => ({ ...body }),
  tokenize: tokenizePrompt,

  async info(http, baseUrl) {
    const [version, server] = await Promise.all([
      getJson(http, joinUrl(baseUrl, '/version')).catch(() => undefined),
      modelsInfo(http, baseUrl).catch(() => ({})),
    ])
    const v = asRecord(version)?.version
    return { ...(typeof v === 'string' ? { version: v } : {}), ...(Object.keys(server).length ? { server } : {}) }
  },

  async counters(http, baseUrl) {
    const answer = await http.get(joinUrl(baseUrl, '/metrics'), INFO_TIMEOUT_MS).catch(() => undefined)
    if (answer?.status !== 200) return undefined
    const counters = sumByName(answer.body, VLLM_COUNTER_NAMES)
    return Object.keys(counters).length ? counters : undefined
  },

  resetPrefixCache: (http, baseUrl) =>
    postReset(http, baseUrl, 'vllm', '/reset_prefix_cache', 'vLLM serves it with VLLM_SERVER_DEV_MODE=1'),

  roundAcceptance: (server) => countedAcceptance(server, VLLM_DRAFT_COUNTERS),
  specDecode: (before, after) => (before ? vllmSpecDecode(before, after) : undefined),
}
