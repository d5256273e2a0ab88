/**
 * The band a trend chart shades: the gate's limit for the metric, around the reference, as the verdict applies it
 * (compare/reference.ts `relativeLimit`: the larger of `max-regression` and `min-delta` taken relative to the
 * reference). A target without a gate, or a metric its gate does not name, gets the default band, and its caption
 * says so: the built-in limit where the registry has one (decode 5%, TTFT 10% and at least 50 ms), else
 * DEFAULT_LIMIT.
 */
import { relativeLimit } from '../../compare/index.js'
import { defaultGateConfig } from '../../config/settings.js'
import { formatNumber, formatPercent, formatPoints } from '../../core/format.js'
import { isDrop, isRelative, metricInfo, type DropMetric, type GatedMetric } from '../../core/metrics.js'
import type { GateConfig, GateMetricConfig } from '../../core/plan.js'
import type { TrendBand } from './dashboard-chart.js'

/** The default band of a relative metric the registry has no built-in limit for (startup, energy per token). */
export const DEFAULT_LIMIT = 0.05

export interface DashboardBand extends TrendBand {
  /** The relative half-width: 0.05 for ±5%. */
  limit: number
  /** The caption's words: `shaded: the gate's limit ±5% around the reference 28.4 tok/s`. */
  note: string
}

let builtIn: GateConfig | undefined
/** The registry's built-in gate, resolved once. */
const builtInGate = (): GateConfig => (builtIn ??= defaultGateConfig())

function limitConfig(metric: GatedMetric, gate: GateConfig | undefined): { config: GateMetricConfig; gated: boolean } {
  const own = gate && isRelative(metric) ? gate[metric] : undefined
  if (own) return { config: own, gated: true }
  const fallback = isRelative(metric) ? builtInGate()[metric] : undefined
  return { config: fallback ?? { maxRegression: DEFAULT_LIMIT, stat: 'mean' }, gated: false }
}

/**
 * The band of a share gated in points (goodput's `max-drop`), charted in percent: `reference` ± the points, the
 * gate's or the registry's default. The gate flags a drop only; the band is drawn both ways, as for the others.
 */
function dropBand(metric: DropMetric, reference: number, gate: GateConfig | undefined): DashboardBand {
  const own = gate?.[metric]?.maxDrop
  const drop = own ?? builtInGate()[metric]?.maxDrop ?? 0
  const points = drop * 100
  const around = `${formatNumber(reference)} %`
  const words = `limit of ${formatPoints(drop)} points around the reference ${around}`
  // A share lies within 0–100 %: the band stops there, so the axis never offers 105 %.
  return {
    low: Math.max(0, reference - points),
    high: Math.min(100, reference + points),
    limit: reference > 0 ? points / reference : 0,
    title: `limit ±${formatPoints(drop)} points around ${around}`,
    note:
      own !== undefined
        ? `shaded: the gate's ${words}`
        : `shaded: the default ${words}${gate ? ' (not in the gate)' : ' (no gate given)'}`,
  }
}

/**
 * The band of `metric` around `reference` under `gate` (the cell's target's, if any). A share (goodput) is charted
 * in percent (chartValue), so its reference and band are in percent too.
 */
export function trendBand(metric: GatedMetric, reference: number, gate: GateConfig | undefined): DashboardBand {
  if (isDrop(metric)) return dropBand(metric, reference, gate)
  const { unit } = metricInfo(metric)
  const { config, gated } = limitConfig(metric, gate)
  const limit = reference > 0 ? relativeLimit(config, reference) : config.maxRegression
  const half = Math.abs(reference) * limit
  const around = `${formatNumber(reference)} ${unit}`
  const floor =
    config.minDelta !== undefined && limit > config.maxRegression ? ` (its min-delta ${config.minDelta} ${unit})` : ''
  const why = gated ? '' : gate ? ' (not in the gate)' : ' (no gate given)'
  // TTFT, tok/s, seconds and joules are never below 0: neither is the band (a 50 ms floor around a 20 ms TTFT).
  return {
    low: Math.max(0, reference - half),
    high: reference + half,
    limit,
    title: `limit ±${formatPercent(limit)}${floor} around ${around}`,
    note: gated
      ? `shaded: the gate's limit ±${formatPercent(limit)}${floor} around the reference ${around}`
      : `shaded: the default limit ±${formatPercent(limit)}${floor} around the reference ${around}${why}`,
  }
}

/**
 * A share (unit `share`, 0–1) is charted in percent, within 0–100; every other figure as recorded. Every charted
 * figure is a rate, a duration, an energy or a share, none below 0: trendScale's axis starts at 0 at the lowest.
 */
export function chartUnit(metric: GatedMetric): { scale: number; unit: string; bounds?: readonly [number, number] } {
  const { unit } = metricInfo(metric)
  return unit === 'share' ? { scale: 100, unit: '%', bounds: [0, 100] } : { scale: 1, unit, bounds: [0, Infinity] }
}
