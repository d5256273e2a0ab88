/** A minimal engine adapter for bench tests: OpenAI paths, no extra fields, optional `/tokenize`. */
import type { EngineAdapter } from '../../src/engines/types.js'

export const plainAdapter: EngineAdapter = {
  name: 'test',
  needsLaunchOrUrl: true,
  healthPath: '/v1/models',
  readiness: (answer) => (answer.status === 200 ? 'ready' : 'loading'),
  path: (api) => (api === 'chat' ? '/v1/chat/completions' : '/v1/completions'),
  transformRequest: (body) => body,
  info: async () => ({}),
}

/** Counts prompt tokens through the scheduled server's `/tokenize` (which, like many, ignores the chat template). */
export const tokenizingAdapter: EngineAdapter = {
  ...plainAdapter,
  async tokenize(http, baseUrl, model, text) {
    const answer = await http.post(`${baseUrl}/tokenize`, { model, prompt: text }, 5_000)
    return answer.status === 200 ? (JSON.parse(answer.body) as { count: number }).count : undefined
  },
}
