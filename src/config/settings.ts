/** Per-target settings and gate: the file's `defaults`/`gate`, overridden by the target's own keys. */
import { GATED_METRICS, isDrop, isRelative } from '../core/metrics.js'
import { DEFAULT_AB_MAX_LAUNCHES } from '../core/plan.js'
import type { GateConfig, GateMetricConfig, QualityProbeSettings, TargetSettings } from '../core/plan.js'
import { DEFAULT_QUALITY_GATE, type QualityGate } from '../core/quality.js'
import { Problems, type Path } from './issues.js'
import { defaultGate, type GateInput } from './gate-schema.js'
import type { Settings, TargetInput } from './schema.js'
import { SETTING_KEYS } from './settings-schema.js'

type GateEntry = Partial<{
  'max-regression': number
  'min-delta': number
  stat: GateMetricConfig['stat']
  max: number
  'max-drop': number
}>
type QualityGateEntry = NonNullable<GateInput['quality']>
type PartialGate = Partial<Record<Exclude<keyof GateInput, 'quality'>, GateEntry | false | undefined>> & {
  quality?: QualityGateEntry
}

export function resolveSettings(
  defaults: Settings,
  target: TargetInput,
  path: Path,
  problems: Problems,
): TargetSettings {
  const own = target as Partial<Settings>
  const merged = { ...defaults }
  for (const key of SETTING_KEYS) {
    if (own[key] !== undefined) (merged as Record<string, unknown>)[key] = own[key]
  }
  if (merged.discard >= merged.rounds) {
    // Point at whichever side this target set; with neither, the file's defaults are at fault.
    const at =
      own.discard !== undefined
        ? [...path, 'discard']
        : own.rounds !== undefined
          ? [...path, 'rounds']
          : ['defaults', 'discard']
    problems.add(at, `discard ${merged.discard} leaves no steady rounds out of rounds ${merged.rounds}`)
  }
  const maxLaunches = abMaxLaunches(merged, own, path, problems)
  const maxRounds = maxRoundsOf(merged, own, path, problems)
  return {
    rounds: merged.rounds,
    discard: merged.discard,
    readyTimeoutMs: merged['ready-timeout'],
    requestTimeoutMs: merged['request-timeout'],
    api: merged.api,
    confirm: merged.confirm,
    confirmFresh: merged['confirm-fresh'],
    maxRounds,
    noiseFloor: merged['noise-floor'],
    creepWindow: merged['creep-window'],
    bisect: { mode: merged.bisect, budgetMs: merged['bisect-budget'] },
    memoryFloor: merged['memory-floor'],
    dropCaches: merged['drop-caches'],
    maxErrorShare: merged['max-error-share'],
    passEnv: [...merged['pass-env']],
    allowGpuProcesses: [...merged['allow-gpu-processes']],
    requestBody: { ...merged['request-body'] },
    quality: probeSettings(merged.quality),
    ab: {
      mode: merged.ab,
      launches: merged['ab-launches'],
      maxLaunches,
      budgetMs: merged['ab-budget'],
      ...(merged['ab-setup']?.trim() && { setup: merged['ab-setup'] }),
    },
    ...(merged.bandwidth !== undefined && { bandwidth: merged.bandwidth }),
    ...(merged['model-bytes'] !== undefined && { modelBytes: merged['model-bytes'] }),
  }
}

/** `max-rounds`: the target's `rounds` unless given; one below `rounds` is refused. */
function maxRoundsOf(merged: Settings, own: Partial<Settings>, path: Path, problems: Problems): number {
  const maxRounds = merged['max-rounds'] ?? merged.rounds
  if (maxRounds < merged.rounds) {
    const at =
      own['max-rounds'] !== undefined
        ? [...path, 'max-rounds']
        : own.rounds !== undefined
          ? [...path, 'rounds']
          : ['defaults', 'max-rounds']
    problems.add(
      at,
      `${maxRounds} is less than rounds ${merged.rounds}: max-rounds counts every round, the first ones included`,
    )
  }
  return Math.max(maxRounds, merged.rounds)
}

/** `ab-max-launches`: 6, or `ab-launches` when that is more; one set below `ab-launches` is refused. */
function abMaxLaunches(merged: Settings, own: Partial<Settings>, path: Path, problems: Problems): number {
  const least = merged['ab-launches']
  const most = merged['ab-max-launches'] ?? Math.max(DEFAULT_AB_MAX_LAUNCHES, least)
  if (most >= least) return most
  const at = own['ab-max-launches'] !== undefined ? [...path, 'ab-max-launches'] : ['defaults', 'ab-max-launches']
  problems.add(at, `ab-max-launches ${most} is fewer than ab-launches ${least}, the minimum per arm`)
  return least
}

function probeSettings(quality: Settings['quality']): QualityProbeSettings | false {
  if (quality === false) return false
  const { questions, prompts, concurrency, api } = quality
  return { questions, prompts, maxTokens: quality['max-tokens'], concurrency, ...(api && { api }) }
}

/** The quality gate: the built-in one, the top-level fields over it, the target's over those; false at either level switches it off. */
function resolveQualityGate(
  top: QualityGateEntry | undefined,
  own: QualityGateEntry | undefined,
): QualityGate | undefined {
  if (own === false || (own === undefined && top === false)) return undefined
  const gate: QualityGate = { ...DEFAULT_QUALITY_GATE }
  for (const entry of [top, own]) {
    if (!entry) continue
    if (entry['max-accuracy-drop'] !== undefined) gate.maxAccuracyDrop = entry['max-accuracy-drop'] / 100
    if (entry['min-agreement'] !== undefined) gate.minAgreement = entry['min-agreement']
    if (entry.degenerate !== undefined) gate.degenerate = entry.degenerate
  }
  return gate
}

/** Merge field by field per metric; `false` switches a metric off. */
export function resolveGate(
  top: GateInput,
  target: PartialGate | undefined,
  path: Path,
  problems: Problems,
): GateConfig {
  const gate: GateConfig = {}
  const quality = resolveQualityGate(top.quality, target?.quality)
  if (quality) gate.quality = quality
  for (const metric of GATED_METRICS) {
    const base = top[metric] as GateEntry | false | undefined
    const own = (target as PartialGate | undefined)?.[metric]
    if (own === false || (own === undefined && !base)) continue
    const entry: GateEntry = { ...(base || {}), ...(own ?? {}) }
    const key = isRelative(metric) ? 'max-regression' : isDrop(metric) ? 'max-drop' : 'max'
    const limit = entry[key]
    if (limit === undefined) {
      problems.add([...path, 'gate', metric, key], `required (${metric} is not in the top-level gate)`)
      continue
    }
    if (isDrop(metric)) {
      gate[metric] = { maxDrop: limit }
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
