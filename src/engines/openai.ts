/**
 * Any OpenAI-compatible server (`engine: openai`): ready once `/v1/models` answers, no
 * tokenizer endpoint, facts from the model list. The helpers here are shared by the
 * engines that speak the same dialect.
 */
import type { Api } from '../core/plan.js'
import { asRecord, getJson, postJson } from './http.js'
import { joinUrl } from '../core/url.js'
import type { EngineAdapter, HttpPorts, ProbeAnswer, Readiness } from './types.js'

const PATHS: Record<Api, string> = { completions: '/v1/completions', chat: '/v1/chat/completions' }

export function openaiPath(api: Api): string {
  return PATHS[api]
}

/**
 * Ready on a 200 from the health endpoint; anything else (connection refused, 503 "Loading model", a proxy's 502)
 * is "not yet": before an engine has answered ready once, only the exit of its process ends the wait.
 */
export function readyOn200(answer: ProbeAnswer): Readiness {
  return answer.status === 200 ? 'ready' : 'loading'
}

/** Served model ids and, when the server says, the context length. */
export async function modelsInfo(http: HttpPorts, baseUrl: string): Promise<Record<string, unknown>> {
  const list = asRecord(await getJson(http, joinUrl(baseUrl, '/v1/models')))
  const data = Array.isArray(list?.data) ? list.data.map(asRecord).filter((m) => m !== undefined) : []
  const ids = data.map((m) => m.id).filter((id): id is string => typeof id === 'string')
  const out: Record<string, unknown> = {}
  if (ids.length) out.models = ids
  const first = data[0]
  if (typeof first?.root === 'string' && first.root !== first.id) out.root = first.root
  if (typeof first?.max_model_len === 'number') out.max_model_len = first.max_model_len
  return out
}

/** A `tokenize` hook for `POST <path> {model, prompt}` → `{count, tokens}`, the dialect vLLM's `/tokenize` set. */
export function tokenizeAt(path: string): NonNullable<EngineAdapter['tokenize']> {
  return async (http, baseUrl, model, text) => {
    const answer = asRecord(await postJson(http, joinUrl(baseUrl, path), { ...(model ? { model } : {}), prompt: text }))
    if (typeof answer?.count === 'number') return answer.count
    return Array.isArray(answer?.tokens) ? answer.tokens.length : undefined
  }
}

/** `POST /tokenize` (vLLM, and SGLang's compatible endpoint). */
export const tokenizePrompt = tokenizeAt('/tokenize')

export const openai: EngineAdapter = {
  name: 'openai',
  needsLaunchOrUrl: true,
  healthPath: '/v1/models',
  readiness: readyOn200,
  path: openaiPath,
  transformRequest: (body) => ({ ...body }),
  async info(http, baseUrl) {
    const server = await modelsInfo(http, baseUrl).catch(() => ({}))
    return Object.keys(server).length ? { server } : {}
  },
}
