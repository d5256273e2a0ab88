/** Per-target settings and gate: the file's `defaults`/`gate`, overridden by the target's own keys. */
import { GATED_METRICS, isRelative } from '../core/metrics.js'
import type { GateConfig, GateMetricConfig, TargetSettings } from '../core/plan.js'
import { Problems, type Path } from './issues.js'
import { SETTING_KEYS, defaultGate, type GateInput, type Settings, type TargetInput } from './schema.js'

type GateEntry = Partial<{ 'max-regression': number; 'min-delta': number; stat: GateMetricConfig['stat']; max: number }>
type PartialGate = Partial<Record<keyof GateInput, GateEntry | false | undefined>>

export function resolveSettings(defaults: Settings, target: TargetInput, path: Path, problems: Problems): TargetSettings {
  const own = target as Partial<Settings>
  const merged = { ...defaults }
  for (const key of SETTING_KEYS) {
    if (own[key] !== undefined) (merged as Record<string, unknown>)[key] = own[key]
  }
  if (merged.discard >= merged.rounds) {
    // Point at whichever side this target set; with neither, the file's defaults are at fault.
    const at = own.discard !== undefined ? [...path, 'discard'] : own.rounds !== undefined ? [...path, 'rounds'] : ['defaults', 'discard']
    problems.add(at, `discard ${merged.discard} leaves no steady rounds out of rounds ${merged.rounds}`)
  }
  const maxRounds = merged['max-rounds'] ?? merged.rounds
  if (maxRounds < merged.rounds) {
    const at = own['max-rounds'] !== undefined ? [...path, 'max-rounds'] : own.rounds !== undefined ? [...path, 'rounds'] : ['defaults', 'max-rounds']
    problems.add(at, `${maxRounds} is less than rounds ${merged.rounds}: max-rounds counts every round, the first ones included`)
  }
  return {
    rounds: merged.rounds,
    discard: merged.discard,
    readyTimeoutMs: merged['ready-timeout'],
    requestTimeoutMs: merged['request-timeout'],
    api: merged.api,
    confirm: merged.confirm,
    confirmFresh: merged['confirm-fresh'],
    maxRounds: Math.max(maxRounds, merged.rounds),
    noiseFloor: merged['noise-floor'],
    memoryFloor: merged['memory-floor'],
    dropCaches: merged['drop-caches'],
    maxErrorShare: merged['max-error-share'],
    passEnv: [...merged['pass-env']],
  }
}

/** Merge field by field per metric; `false` switches a metric off. */
export function resolveGate(top: GateInput, target: PartialGate | undefined, path: Path, problems: Problems): GateConfig {
  const gate: GateConfig = {}
  for (const metric of GATED_METRICS) {
    const base = top[metric] as GateEntry | false | undefined
    const own = (target as PartialGate | undefined)?.[metric]
    if (own === false || (own === undefined && !base)) continue
    const entry: GateEntry = { ...(base || {}), ...(own ?? {}) }
    const key = isRelative(metric) ? 'max-regression' : 'max'
    const limit = entry[key]
    if (limit === undefined) {
      problems.add([...path, 'gate', metric, key], `required (${metric} is not in the top-level gate)`)
      continue
    }
    if (!isRelative(metric)) {
      gate[metric] = { max: limit }
      continue
    }
    const config: GateMetricConfig = { maxRegression: limit, stat: entry.stat ?? 'mean' }
    if (entry['min-delta'] !== undefined) config.minDelta = entry['min-delta']
    gate[metric] = config
  }
  return gate
}

/** The gate a file without a `gate:` block gets (the registry's metrics at their built-in limits). */
export function defaultGateConfig(): GateConfig {
  return resolveGate(defaultGate(), undefined, [], new Problems())
}
