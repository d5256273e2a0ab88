/**
 * The simulator's cache-control endpoints: vLLM's `POST /reset_prefix_cache` (vllm/entrypoints/serve/cache/
 * api_router.py) always, as the simulator speaks vLLM's dialect whatever it emulates, and SGLang's
 * `GET|POST /flush_cache` (sglang/srt/entrypoints/http_server.py) where the profile's `emulates` names SGLang.
 * Like the engines, neither empties the cache while requests are in flight: vLLM's newer releases answer 409,
 * SGLang 400.
 */
import type { Profile } from './profile.js'

export interface CacheAnswer {
  status: number
  contentType: string
  body: string
}

const SGLANG_FLUSHED =
  'Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n'

const json = (status: number, body: unknown): CacheAnswer => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify(body),
})
const text = (status: number, body: string): CacheAnswer => ({ status, contentType: 'text/plain; charset=utf-8', body })

export function emulatesSglang(profile: Pick<Profile, 'emulates'>): boolean {
  return /sglang/i.test(profile.emulates)
}

/**
 * The answer to `method path` when it is a cache-control route of this profile, else undefined: `cache` emptied,
 * unless requests are running or waiting (`inFlight`).
 */
export function cacheControl(
  method: string,
  path: string,
  profile: Pick<Profile, 'emulates'>,
  inFlight: { running: number; waiting: number },
  cache: { clear(): unknown },
): CacheAnswer | undefined {
  const busy = inFlight.running + inFlight.waiting > 0
  if (path === '/reset_prefix_cache') {
    if (method !== 'POST') return json(405, { detail: 'Method Not Allowed' })
    if (busy) return json(409, { detail: 'Prefix cache reset failed.' })
    cache.clear()
    return text(200, '')
  }
  if (path === '/flush_cache' && emulatesSglang(profile)) {
    if (method !== 'POST' && method !== 'GET') return json(405, { detail: 'Method Not Allowed' })
    if (busy) return text(400, 'Flush cache failed.\n')
    cache.clear()
    return text(200, SGLANG_FLUSHED)
  }
  return undefined
}
