/**
 * llama.cpp `llama-server`. The port accepts connections during load and `/health` answers
 * 503 "Loading model" until ready. Its sampling defaults are not greedy (temperature 0.8)
 * and it reuses the KV cache of a slot's previous prompt, so both are switched off per request.
 * Spec-decode acceptance arrives per request in the `timings` object of the stream's events
 * (`draft_n`, `draft_n_accepted`; llama.cpp tools/server/README.md), read here as stream extras.
 * After every streamed response the server closes the connection although it answered
 * `Keep-Alive: timeout=5, max=100`, so every streamed request gets a connection of its own.
 */
import type { RequestRecord } from '../core/measurements.js'
import type { SpecDecodeStats } from '../core/results.js'
import { asRecord, getJson, pick, postJson } from './http.js'
import { eraseSlots } from './cache-reset.js'
import { joinUrl } from '../core/url.js'
import { openaiPath } from './openai.js'
import { LLAMACPP_DRAFTS, countedAcceptance, requestAcceptance } from './round-acceptance.js'
import { LLAMACPP_SERIES } from './server-series.js'
import type { EngineAdapter } from './types.js'

function speculativeSettings(settings: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (typeof settings?.speculative === 'boolean') out.speculative = settings.speculative
  const params = asRecord(settings?.params)
  for (const [key, value] of Object.entries(params ?? {})) if (key.startsWith('speculative')) out[key] = value
  return out
}

const DRAFTED = 'draft_n'
const ACCEPTED = 'draft_n_accepted'

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

/** `timings.draft_n` / `draft_n_accepted` of one event, when the request drafted at all. */
export function llamacppStreamExtras(event: Record<string, unknown>): Record<string, number> | undefined {
  const timings = asRecord(event.timings)
  const drafted = count(timings?.[DRAFTED])
  if (drafted === undefined) return undefined
  return { [DRAFTED]: drafted, [ACCEPTED]: count(timings?.[ACCEPTED]) ?? 0 }
}

/** Σ draft_n_accepted / Σ draft_n over the successful requests that drafted. */
export function llamacppSpecDecode(requests: RequestRecord[]): SpecDecodeStats | undefined {
  let drafted = 0
  let accepted = 0
  for (const r of requests) {
    const own = r.extras?.[DRAFTED]
    if (!r.ok || !own) continue
    drafted += own
    accepted += r.extras?.[ACCEPTED] ?? 0
  }
  if (drafted <= 0) return undefined
  return {
    acceptanceRate: accepted / drafted,
    draftTokens: drafted,
    acceptedTokens: accepted,
    source: 'llama.cpp timings.draft_n / draft_n_accepted summed over requests',
  }
}

export const llamacpp: EngineAdapter = {
  name: 'llamacpp',
  needsLaunchOrUrl: true,
  serverSeries: LLAMACPP_SERIES,
  healthPath: '/health',
  readiness: (answer) => (answer.status === 200 ? 'ready' : 'loading'),
  path: openaiPath,
  // A slot reuses the cached prompt of its previous request unless told not to: off, but for a scenario whose
  // requests share a prefix, where reuse is the point (tools/server/README.md, `cache_prompt`).
  transformRequest: (body, _api, options) => ({
    ...body,
    temperature: 0,
    cache_prompt: options?.sharedPrefix === true,
  }),
  streamExtras: llamacppStreamExtras,
  freshConnectionPerRequest: true,

  async tokenize(http, baseUrl, _model, text) {
    // add_special: the server adds BOS when it tokenizes a completion prompt; count it the same way.
    const answer = asRecord(
      await postJson(http, joinUrl(baseUrl, '/tokenize'), { content: text, add_special: true }).catch(() => undefined),
    )
    return Array.isArray(answer?.tokens) ? answer.tokens.length : undefined
  },

  async info(http, baseUrl) {
    const props = asRecord(await getJson(http, joinUrl(baseUrl, '/props')).catch(() => undefined))
    if (!props) return {}
    const settings = asRecord(props.default_generation_settings)
    const server = {
      ...pick(props, ['model_path', 'total_slots']),
      ...pick(settings, ['n_ctx']),
      ...speculativeSettings(settings),
    }
    const version = typeof props.build_info === 'string' ? props.build_info : undefined
    return { ...(version ? { version } : {}), ...(Object.keys(server).length ? { server } : {}) }
  },

  // Each slot's cached prompt erased; the server needs `--slot-save-path` for it (cache-reset.ts).
  resetPrefixCache: eraseSlots,

  // The server's draft counters where this build has them (b10470 does), else the requests' timings.
  roundAcceptance: (server, requests) =>
    countedAcceptance(server, LLAMACPP_DRAFTS) ?? requestAcceptance(requests, ACCEPTED),
  specDecode: (_before, _after, requests) => llamacppSpecDecode(requests),
}
