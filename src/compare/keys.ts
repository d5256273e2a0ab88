/** How each gated metric maps onto the results file, and which direction is better. */
import type { GateStat, GatedMetric } from '../config/plan.js'
import type { DistributionMetric, MetricsBlock, ScalarMetric } from '../bench/types.js'

export interface GatedMetricInfo {
  /** Key in `MetricsBlock`. */
  field: DistributionMetric | ScalarMetric
  /** Scalar round metrics have no per-request distribution, so `stat` does not apply. */
  scalar: boolean
  higherIsBetter: boolean
  unit: 'ms' | 'tok/s'
  label: string
}

export const GATED: Record<GatedMetric, GatedMetricInfo> = {
  decode: { field: 'decode_tps', scalar: false, higherIsBetter: true, unit: 'tok/s', label: 'decode tok/s' },
  ttft: { field: 'ttft_ms', scalar: false, higherIsBetter: false, unit: 'ms', label: 'TTFT' },
  tpot: { field: 'tpot_ms', scalar: false, higherIsBetter: false, unit: 'ms', label: 'TPOT' },
  prefill: { field: 'prefill_tps', scalar: false, higherIsBetter: true, unit: 'tok/s', label: 'prefill tok/s' },
  'output-throughput': { field: 'output_tps', scalar: true, higherIsBetter: true, unit: 'tok/s', label: 'output tok/s' },
  e2e: { field: 'e2e_ms', scalar: false, higherIsBetter: false, unit: 'ms', label: 'E2E latency' },
}

/** `decode_tps.mean`, `ttft_ms.p99`, `output_tps`: the key used in history files and verdicts. */
export function metricKey(metric: GatedMetric, stat: GateStat): string {
  const info = GATED[metric]
  return info.scalar ? info.field : `${info.field}.${stat}`
}

/** Reads the value a metric key names from a metrics block. */
export function readMetric(block: MetricsBlock, metric: GatedMetric, stat: GateStat): number {
  const info = GATED[metric]
  const value = block[info.field]
  return typeof value === 'number' ? value : value[stat]
}

/** Like `readMetric`, but `undefined` when the block lacks the metric or the value is not a finite number (older or partial files). */
export function tryReadMetric(block: MetricsBlock | null | undefined, metric: GatedMetric, stat: GateStat): number | undefined {
  const value: unknown = block?.[GATED[metric].field]
  const picked = typeof value === 'number' ? value : (value as Partial<Record<GateStat, unknown>> | undefined)?.[stat]
  return typeof picked === 'number' && Number.isFinite(picked) ? picked : undefined
}
