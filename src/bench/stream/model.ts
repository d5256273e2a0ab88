/** The served model name when the target gives none: `GET /v1/models` → `data[0].id`, as vLLM's client does. */
import type { HttpPorts } from '../../engines/types.js'
import { RequestError } from '../../core/errors.js'
import { excerpt } from './events.js'
import { joinUrl } from '../../core/url.js'

export async function resolveModel(http: HttpPorts, baseUrl: string, timeoutMs: number): Promise<string> {
  const url = joinUrl(baseUrl, '/v1/models')
  const answer = await http.get(url, timeoutMs)
  if (answer.status === 0) throw new RequestError(`GET /v1/models: no answer from ${baseUrl}`, 'network')
  if (answer.status !== 200)
    throw new RequestError(`GET /v1/models: HTTP ${answer.status}: ${excerpt(answer.body)}`, 'http', answer.status)
  let id: unknown
  try {
    id = (JSON.parse(answer.body) as { data?: { id?: unknown }[] }).data?.[0]?.id
  } catch {
    // reported below
  }
  if (typeof id !== 'string' || !id)
    throw new RequestError(`GET /v1/models: no model id in ${excerpt(answer.body, 120)}`, 'malformed')
  return id
}

/**
 * The model name to send: the target's, else `/v1/models` asked once per client. A failed lookup
 * is not kept, so the next caller asks again.
 */
export function servedModel(
  configured: string | undefined,
  http: HttpPorts,
  baseUrl: string,
  timeoutMs: number,
): () => Promise<string> {
  let model: Promise<string> | undefined
  return () => {
    if (!model) {
      model = configured !== undefined ? Promise.resolve(configured) : resolveModel(http, baseUrl, timeoutMs)
      model.catch(() => (model = undefined))
    }
    return model
  }
}
