/**
 * `gate:` in the matrix file, at the top and per target: one entry per gated metric of the registry, written the
 * way its rule says (`max-regression`, `max`, `max-drop`), and the quality gate. The built-in gate is the
 * registry's default limits.
 */
import { z } from 'zod'
import { DEFAULT_QUALITY_GATE } from '../core/quality.js'
import { expected, minDelta, points, relative } from '../core/fields.js'
import {
  GATE_STATS,
  GATED_METRICS,
  METRICS,
  isDrop,
  isRelative,
  metricInfo,
  type GatedMetric,
} from '../core/metrics.js'

/** The gate used when the file has no top-level `gate`: the registry's metrics that have a built-in limit. */
export const DEFAULT_GATE = Object.fromEntries(
  GATED_METRICS.flatMap((m) => (metricInfo(m).defaultGate ? [[m, metricInfo(m).defaultGate]] : [])),
)

/** The unit `min-delta` is written in: a duration for time figures, a plain number otherwise. */
function gateMetricSchema(metric: GatedMetric, top: boolean) {
  if (isDrop(metric)) {
    const maxDrop = points().meta({
      description: `Points ${METRICS[metric].label} may fall below the baseline, beyond the noise, before the cell fails`,
    })
    return z.strictObject({ 'max-drop': top ? maxDrop : maxDrop.optional() })
  }
  if (!isRelative(metric)) {
    const max = relative({ allowZero: true, capPercent: true }).meta({
      description: 'Share above which the cell fails',
    })
    return z.strictObject({ max: top ? max : max.optional() })
  }
  const maxRegression = relative().meta({ description: 'Relative worsening that may count as a regression' })
  return z.strictObject({
    'max-regression': top ? maxRegression : maxRegression.optional(),
    'min-delta': minDelta(METRICS[metric].unit).optional(),
    stat: z.enum(GATE_STATS, { error: expected(`must be one of ${GATE_STATS.join(', ')}`) }).optional(),
  })
}

/** `gate.quality`: every field optional (the built-in value, or the top-level one for a target); false switches it off. */
function qualityGateSchema() {
  const d = DEFAULT_QUALITY_GATE
  return z
    .union(
      [
        z.strictObject({
          'max-accuracy-drop': z
            .number({ error: expected('must be a number of points from 0 to 100') })
            .min(0, { error: expected('must be a number of points from 0 to 100') })
            .max(100, { error: expected('must be a number of points from 0 to 100') })
            .meta({ description: `Largest accuracy drop in points that passes (default ${d.maxAccuracyDrop * 100})` })
            .optional(),
          'min-agreement': z
            .number({ error: expected('must be a number from 0 to 1') })
            .min(0, { error: expected('must be a number from 0 to 1') })
            .max(1, { error: expected('must be a number from 0 to 1') })
            .meta({
              description: `Lowest agreement with the baseline's greedy outputs that passes (default ${d.minAgreement})`,
            })
            .optional(),
          degenerate: z
            .enum(['fail', 'warn', 'off'], { error: expected('must be fail, warn or off') })
            .meta({ description: `What a rise of degenerate output does (default ${d.degenerate})` })
            .optional(),
        }),
        z.literal(false),
      ],
      { error: expected('must be a mapping like { max-accuracy-drop: 5 } or false') },
    )
    .meta({ description: 'Output quality gate against the same cell baseline; false switches it off' })
    .optional()
}

/** Top-level gates name every field they use; a target's gate may override single fields. */
export function gateSchema(level: 'top' | 'target') {
  const entry = (metric: GatedMetric) =>
    z
      .union([gateMetricSchema(metric, level === 'top'), z.literal(false)], {
        error: expected(
          `must be a mapping like ${isRelative(metric) ? '{ max-regression: 5% }' : isDrop(metric) ? '{ max-drop: 5 }' : '{ max: 1% }'} or false`,
        ),
      })
      .meta({ description: `${METRICS[metric].label}; false switches the metric off` })
      .optional()
  const metrics = Object.fromEntries(GATED_METRICS.map((m) => [m, entry(m)])) as Record<
    GatedMetric,
    ReturnType<typeof entry>
  >
  return z.strictObject({ ...metrics, quality: qualityGateSchema() })
}

export type GateInput = z.output<ReturnType<typeof gateSchema>>

/** The built-in gate in parsed form (the file's `gate` replaces it when present). */
export function defaultGate(): GateInput {
  return gateSchema('top').parse(DEFAULT_GATE)
}

/**
 * The gate a file's targets start from. A file's own `gate:` replaces the built-in limits of the speed
 * metrics, but a ceiling with a built-in limit (failed requests) is a health check, not a speed target: it
 * stays at its built-in value unless the file sets it or switches it off (`failed-requests: false`), so
 * writing `gate: { decode: … }` never drops it silently. So does goodput's: a scenario's `slo` asks for it.
 */
export function topGate(file: GateInput | undefined): GateInput {
  const builtIn = defaultGate()
  if (!file) return builtIn
  const kept = GATED_METRICS.filter((m) => !isRelative(m) && file[m] === undefined && builtIn[m] !== undefined)
  return { ...file, ...Object.fromEntries(kept.map((m) => [m, builtIn[m]])) }
}
