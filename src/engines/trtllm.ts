/**
 * NVIDIA TensorRT-LLM's OpenAI-compatible server (`trtllm-serve <model>`), as the TensorRT-LLM
 * repository has it in tensorrt_llm/commands/serve.py (`launch_server`),
 * tensorrt_llm/serve/openai_server.py and tensorrt_llm/serve/openai_protocol.py:
 *
 * - Loading: the socket is bound before the model is built and only listened on once uvicorn
 *   starts, so the probe sees connection refused. `/health` then answers 200, and 503 ("LLM is
 *   unavailable") after a fatal executor error; before the first 200 any answer is "still loading"
 *   while the process lives (a proxy in front answers 503 while loading too).
 * - Facts: `/version` → `{version}`, `/v1/models` (the served id), and on newer builds
 *   `/server_info` (`max_batch_size`, `tokens_per_block`).
 * - Tokenizer: newer builds answer `POST /_internal/tokenize {prompt}` → `{count, tokens}`;
 *   older ones 404, and the prompt is calibrated with real requests instead.
 * - No counters: `/metrics` is a JSON list of iteration stats that each read drains, not
 *   Prometheus text, so spec-decode acceptance is not recorded.
 * - Requests: the protocol models forbid unknown fields (HTTP 400). In a chat request
 *   `max_tokens` is the alias of `max_completion_tokens`, so sending both makes the second an
 *   unknown field; only `max_tokens` is kept. Every other common field is declared.
 */
import { asRecord, getJson, pick } from './http.js'
import { joinUrl } from '../core/url.js'
import { modelsInfo, openaiPath, readyOn200, tokenizeAt } from './openai.js'
import type { EngineAdapter } from './types.js'

export const trtllm: EngineAdapter = {
  name: 'trtllm',
  needsLaunchOrUrl: true,
  healthPath: '/health',
  readiness: readyOn200,
  path: openaiPath,
  transformRequest(body, api) {
    if (api !== 'chat') return { ...body }
    const { max_completion_tokens: _, ...rest } = body
    return rest
  },
  tokenize: tokenizeAt('/_internal/tokenize'),

  async info(http, baseUrl) {
    const [version, models, serverInfo] = await Promise.all([
      getJson(http, joinUrl(baseUrl, '/version')).catch(() => undefined),
      modelsInfo(http, baseUrl).catch(() => ({})),
      getJson(http, joinUrl(baseUrl, '/server_info')).catch(() => undefined),
    ])
    const v = asRecord(version)?.version
    const server = { ...models, ...pick(asRecord(serverInfo), ['max_batch_size', 'tokens_per_block']) }
    return { ...(typeof v === 'string' ? { version: v } : {}), ...(Object.keys(server).length ? { server } : {}) }
  },
}
