/**
 * `engine: sim`: the built-in simulator, launched as `llm-bench-gate sim …` through the same
 * launch/ready/teardown path as a real engine. It speaks vLLM's dialect, so readiness,
 * counters and spec-decode acceptance read like vLLM's.
 */
import { resolve } from 'node:path'
import type { TargetPlan } from '../core/plan.js'
import { ConfigError } from '../core/errors.js'
import { cliEntry } from '../core/paths.js'
import { loadProfile, SHIPPED_PROFILES } from '../sim/profiles.js'
import { asRecord, getJson, INFO_TIMEOUT_MS, joinUrl } from './http.js'
import { openaiPath, tokenizePrompt } from './openai.js'
import { sumByName, VLLM_COUNTER_NAMES, vllmSpecDecode } from './prometheus.js'
import type { EngineAdapter } from './types.js'

/** Single-quotes a word for `bash -c` unless it is plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/** `500`, `500ms`, `2s`, `1.5m` → milliseconds. */
function durationMs(value: unknown): number | undefined {
  if (typeof value === 'number') return value >= 0 ? value : undefined
  const m = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(value) : null
  if (!m) return undefined
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm']
}

function simArgs(target: TargetPlan): string[] {
  const where = `targets.${target.sourceKey}`
  const named = target.id === target.sourceKey ? '' : ` (${target.id})`
  const o = target.engineOptions
  const problems: string[] = []
  const args: string[] = []

  const profile = o.profile
  if (typeof profile !== 'string' || profile.trim() === '') {
    problems.push(`${where}.profile${named}: engine sim needs a profile: a shipped name or a path to a profile .json file`)
  } else {
    try {
      loadProfile(profile)
      // A path is made absolute here, so the child finds it whatever its working directory.
      args.push('--profile', shellQuote(SHIPPED_PROFILES.has(profile) ? profile : resolve(profile)))
    } catch (error) {
      problems.push(`${where}.profile${named}: ${(error as Error).message}`)
    }
  }
  const scale = o['time-scale']
  if (scale !== undefined) {
    if (typeof scale === 'number' && scale > 0) args.push('--time-scale', String(scale))
    else problems.push(`${where}.time-scale${named}: expected a number > 0, got ${JSON.stringify(scale)}`)
  }
  const seed = o.seed
  if (seed !== undefined) {
    if (typeof seed === 'number' && Number.isInteger(seed)) args.push('--seed', String(seed))
    else problems.push(`${where}.seed${named}: expected an integer, got ${JSON.stringify(seed)}`)
  }
  if (o['load-time'] !== undefined) {
    const ms = durationMs(o['load-time'])
    if (ms !== undefined) args.push('--load-ms', String(Math.round(ms)))
    else problems.push(`${where}.load-time${named}: expected a duration like 500ms or 2s, got ${JSON.stringify(o['load-time'])}`)
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return args
}

export const sim: EngineAdapter = {
  name: 'sim',
  description: 'built-in simulator: streams tokens on the schedule of a DGX Spark profile (no GPU needed)',
  needsLaunchOrUrl: false,
  optionKeys: ['profile', 'time-scale', 'seed', 'load-time'],

  defaultLaunch(target) {
    const args = simArgs(target)
    return [shellQuote(process.execPath), shellQuote(cliEntry()), 'sim', ...args, '--port', '{port}'].join(' ')
  },

  healthPath: '/health',
  // Like vLLM: the port refuses connections while "loading", then /health answers 200.
  readiness: (answer) => (answer.status === 200 ? 'ready' : 'loading'),

  path: openaiPath,
  transformRequest: (body) => body,
  tokenize: tokenizePrompt,

  async info(http, baseUrl) {
    const v = asRecord(await getJson(http, joinUrl(baseUrl, '/version')))
    if (!v) return {}
    const str = (key: string) => (typeof v[key] === 'string' ? { [key]: v[key] as string } : {})
    return { ...str('version'), server: { ...str('profile'), ...str('emulates') } }
  },

  async counters(http, baseUrl) {
    const answer = await http.get(joinUrl(baseUrl, '/metrics'), INFO_TIMEOUT_MS).catch(() => undefined)
    return answer?.status === 200 ? sumByName(answer.body, VLLM_COUNTER_NAMES) : undefined
  },

  specDecode: (before, after) => vllmSpecDecode(before, after, 'sim /metrics counter deltas'),
}
