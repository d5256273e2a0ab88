/**
 * The metric registry: every metric the gate can judge, in one table that config, compare, report and
 * store all read. An entry says where the number lives in a results file (`field`), which statistics it
 * has, which way is better, its unit, label and format, how its limit is written, and where it shows.
 * Adding a gated metric is one entry here plus the code that produces its number.
 */
import { formatDuration, formatNumber, formatPercent } from './format.js'
import type { DistributionMetric, MetricsBlock, ScalarMetric } from './measurements.js'
import type { LaunchField, MetricInfo } from './metric-info.js'

/** Per-request statistics a gate may compare (percentiles as `vllm bench serve` reports them). */
export const GATE_STATS = ['mean', 'p50', 'p90', 'p99'] as const
export type GateStat = (typeof GATE_STATS)[number]

const ms = (value: number): string => formatDuration(value)
const tps = (value: number): string => `${formatNumber(value)} tok/s`

export const METRICS = {
  decode: {
    field: 'decode_tps',
    scalar: false,
    higherIsBetter: true,
    unit: 'tok/s',
    label: 'decode tok/s',
    short: 'decode',
    format: tps,
    rule: 'relative',
    headline: { column: 'Decode tok/s', acceptance: true },
    primary: true,
    defaultGate: { 'max-regression': '5%' },
  },
  ttft: {
    field: 'ttft_ms',
    scalar: false,
    higherIsBetter: false,
    unit: 'ms',
    label: 'TTFT',
    short: 'TTFT',
    format: ms,
    rule: 'relative',
    headline: { column: 'TTFT ms' },
    primary: true,
    defaultGate: { 'max-regression': '10%', 'min-delta': '50ms', stat: 'mean' },
  },
  tpot: {
    field: 'tpot_ms',
    scalar: false,
    higherIsBetter: false,
    unit: 'ms',
    label: 'TPOT',
    short: 'TPOT',
    format: ms,
    rule: 'relative',
    headline: { column: 'TPOT ms' },
  },
  prefill: {
    field: 'prefill_tps',
    scalar: false,
    higherIsBetter: true,
    unit: 'tok/s',
    label: 'prefill tok/s',
    short: 'prefill',
    format: tps,
    rule: 'relative',
    headline: false,
  },
  'output-throughput': {
    field: 'output_tps',
    scalar: true,
    higherIsBetter: true,
    unit: 'tok/s',
    label: 'output tok/s',
    short: 'output',
    format: tps,
    rule: 'relative',
    headline: { column: 'Output tok/s', goodput: true },
  },
  e2e: {
    field: 'e2e_ms',
    scalar: false,
    higherIsBetter: false,
    unit: 'ms',
    label: 'E2E latency',
    short: 'E2E',
    format: ms,
    rule: 'relative',
    headline: false,
  },
  startup: {
    field: 'startup_s',
    scalar: true,
    higherIsBetter: false,
    unit: 's',
    label: 'startup',
    short: 'startup',
    format: (value) => formatDuration(value * 1000),
    rule: 'relative',
    // One figure a target: the engines section shows it, not the per-cell table.
    headline: false,
    launch: true,
  },
  'failed-requests': {
    field: 'failed_share',
    scalar: true,
    higherIsBetter: false,
    unit: 'share',
    label: 'failed requests',
    short: 'failed',
    format: formatPercent,
    rule: 'ceiling',
    headline: false,
    // A share of failed requests the baseline did not have fails the cell.
    defaultGate: { max: '1%' },
  },
  /**
   * GPU energy per output token (J/token) over the round, from the sampler's power readings (host/gpu-telemetry.ts).
   * Only where the GPUs report power, so it is in no built-in gate and no headline column: the report's details
   * show it per round and in the steady state, and `gate.energy` gates it.
   */
  energy: {
    field: 'energy_j_per_token',
    scalar: true,
    higherIsBetter: false,
    unit: 'J/token',
    label: 'energy per token',
    short: 'energy',
    format: (value: number) => `${formatNumber(value)} J/token`,
    rule: 'relative',
    headline: false,
  },
  /**
   * Speculative decoding's factors of decode tok/s (decode = acceptance length ÷ step time): tokens a verify step
   * yields (the bonus token included, as vLLM's `acceptance_length = 1 + accepted / drafts`) and the verify step's
   * duration, acceptance length ÷ the round's decode tok/s.
   */
  'accept-length': {
    field: 'accept_length',
    scalar: true,
    higherIsBetter: true,
    unit: 'tok/step',
    label: 'acceptance length',
    short: 'accept len',
    format: (value: number) => value.toFixed(2),
    rule: 'relative',
    headline: false,
    factorOf: 'decode',
  },
  'step-time': {
    field: 'step_ms',
    scalar: true,
    higherIsBetter: false,
    unit: 'ms',
    label: 'step time',
    short: 'step',
    format: ms,
    rule: 'relative',
    headline: false,
    factorOf: 'decode',
  },
  /**
   * The share of a round's requests that succeeded and met every bound of the scenario's `slo` (bench/rounds/goodput.ts),
   * higher is better. Judged in points: a drop of more than `max-drop` points below the baseline, beyond the noise,
   * regresses. The Output column of the report shows it next to output tok/s.
   */
  goodput: {
    field: 'goodput',
    scalar: true,
    higherIsBetter: true,
    unit: 'share',
    label: 'goodput',
    short: 'goodput',
    format: formatPercent,
    rule: 'drop',
    headline: false,
    defaultGate: { 'max-drop': 5 },
    onlyWith: 'slo',
  },
  /**
   * A conversation's prefix reuse (`turns`): over turns ≥ 2, Σ TTFT ÷ Σ prompt tokens each turn added since the
   * previous one, × 1,000 (bench/rounds/turns.ts). A prefix cache that serves the conversation so far leaves the
   * cost of the added tokens alone; an engine that prefills the whole conversation again every turn shows a
   * figure that grows with it. Lower is better, gated like TTFT.
   */
  'ttft-per-1k-added': {
    field: 'ttft_per_1k_added',
    scalar: true,
    higherIsBetter: false,
    unit: 'ms',
    label: 'TTFT per 1k added tokens',
    short: 'TTFT/1k added',
    format: ms,
    rule: 'relative',
    headline: false,
    defaultGate: { 'max-regression': '10%', 'min-delta': '20ms' },
    onlyWith: 'turns',
  },
} as const satisfies Record<string, MetricInfo>

export type GatedMetric = keyof typeof METRICS
/** Metrics whose gate is `{ max-regression, min-delta, stat }`. */
export type RelativeMetric = {
  [M in GatedMetric]: (typeof METRICS)[M]['rule'] extends 'relative' ? M : never
}[GatedMetric]
/** Metrics whose gate is `{ max }`. */
export type CeilingMetric = {
  [M in GatedMetric]: (typeof METRICS)[M]['rule'] extends 'ceiling' ? M : never
}[GatedMetric]
/** Metrics whose gate is `{ max-drop }`: a share judged in points against the baseline. */
export type DropMetric = {
  [M in GatedMetric]: (typeof METRICS)[M]['rule'] extends 'drop' ? M : never
}[GatedMetric]
/** Metrics judged against the baseline with the noise model (compare/metric.ts): relative ones and drops. */
export type ComparedMetric = RelativeMetric | DropMetric

/** Metrics a gate names; the factors of decode are judged through decode's entry. */
export const GATED_METRICS = (Object.keys(METRICS) as GatedMetric[]).filter((m) => !('factorOf' in METRICS[m]))
/** Speculative decoding's factors of decode tok/s, in the order a line names them. */
export const DECODE_FACTORS: readonly GatedMetric[] = ['accept-length', 'step-time']
export const HEADLINE_METRICS: readonly GatedMetric[] = GATED_METRICS.filter((m) => metricInfo(m).headline !== false)
export const PRIMARY_METRICS: readonly GatedMetric[] = GATED_METRICS.filter((m) => 'primary' in METRICS[m])

/** Figures of a launch (`launch` in the registry): kept in every history entry, since they cost one number a cell. */
export const LAUNCH_METRICS: readonly GatedMetric[] = GATED_METRICS.filter((m) => 'launch' in METRICS[m])

export function metricInfo(metric: GatedMetric): MetricInfo {
  return METRICS[metric]
}

export function isRelative(metric: GatedMetric): metric is RelativeMetric {
  return METRICS[metric].rule === 'relative'
}

export function isDrop(metric: GatedMetric): metric is DropMetric {
  return METRICS[metric].rule === 'drop'
}

export function isCeiling(metric: GatedMetric): metric is CeilingMetric {
  return METRICS[metric].rule === 'ceiling'
}

/** One compared figure: which metric and which statistic of it (`mean` for round-level figures). */
export interface MetricRef {
  metric: GatedMetric
  stat: GateStat
}

/** `decode_tps.mean`, `ttft_ms.p99`, `output_tps`: how history files key a metric and statistic. */
export function metricKey(metric: GatedMetric, stat: GateStat): string {
  const info = METRICS[metric]
  return info.scalar ? info.field : `${info.field}.${stat}`
}

/** `decode tok/s`, `TTFT p99`: the stat is named when it is not the mean. */
export function metricLabel(metric: GatedMetric, stat: GateStat): string {
  const info = METRICS[metric]
  return info.scalar || stat === 'mean' ? info.label : `${info.label} ${stat}`
}

/**
 * The value of a metric and statistic in a metrics block; `undefined` when the block lacks it or the value is
 * not a finite number (older or partial files).
 */
export function readMetric(
  block: MetricsBlock | null | undefined,
  metric: GatedMetric,
  stat: GateStat,
): number | undefined {
  const info: MetricInfo = METRICS[metric]
  // A launch figure is the cell's, never a block's: readCellMetric reads it.
  if (info.launch) return undefined
  const value: unknown = block?.[info.field as DistributionMetric | ScalarMetric]
  const picked = typeof value === 'number' ? value : (value as Partial<Record<GateStat, unknown>> | undefined)?.[stat]
  return typeof picked === 'number' && Number.isFinite(picked) ? picked : undefined
}

/** What a cell holds its figures in: the steady metrics block, and the launch's own figures. */
export type CellFigures = { metrics: MetricsBlock | null } & Partial<Record<LaunchField, number>>

/** A metric's value in a cell: a launch figure from the cell itself, anything else from its metrics block. */
export function readCellMetric(cell: CellFigures, metric: GatedMetric, stat: GateStat): number | undefined {
  const info: MetricInfo = METRICS[metric]
  if (!info.launch) return readMetric(cell.metrics, metric, stat)
  const value: unknown = cell[info.field as LaunchField]
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}
