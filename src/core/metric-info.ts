/**
 * What one entry of the metric registry (core/metrics.ts) says: where its number lives, which way is better, its
 * unit, label and format, how its limit is written, and where it shows.
 */
import type { DistributionMetric, OptionalScalarMetric, ScalarMetric } from './measurements.js'

/** Figures of a launch rather than of its rounds: keys of the cell itself (core/results.ts). */
export type LaunchField = 'startup_s'

/** Units of the registry's metrics; `min-delta` is a duration for `ms` and `s`, a plain number in the unit otherwise. */
export type MetricUnit = 'ms' | 's' | 'tok/s' | 'share' | 'J/token' | 'tok/step'

export interface MetricInfo {
  /** Key in `MetricsBlock`; for a `launch` figure, the key in the cell. */
  field: DistributionMetric | ScalarMetric | OptionalScalarMetric | LaunchField
  /** Per-request distributions have statistics; round-level figures (`output_tps`) are one number each. */
  scalar: boolean
  higherIsBetter: boolean
  unit: MetricUnit
  label: string
  /** The value with its unit, for reasons and notes. */
  format(value: number): string
  /**
   * How the limit is written: `relative` is `{ max-regression, min-delta, stat }` against the baseline;
   * `ceiling` is `{ max }`, a share the value must stay under; `drop` is `{ max-drop }`, the points a share may
   * fall below the baseline (judged as a relative metric whose limit is those points, with its noise).
   */
  rule: 'relative' | 'ceiling' | 'drop'
  /** Short name for column heads (`Δ decode`). */
  short: string
  /**
   * Shown in the report's cell table, in registry order, under `column`, with its baseline value;
   * `acceptance` puts speculative decoding's acceptance rate next to it, `goodput` the cell's goodput.
   */
  headline: false | { column: string; acceptance?: boolean; goodput?: boolean }
  /**
   * The figures the gate promises by default: kept in every history entry whatever the gate says, and
   * given a Δ column on the leaderboard.
   */
  primary?: true
  /** The built-in limit, written as a user writes it: the metric is in the gate of a file without `gate:`. */
  defaultGate?: Record<string, string | number>
  /**
   * A figure of the engine's launch, not of its rounds (`startup`): one value a launch, read from the cell, with
   * no rounds behind it, so none of its noise is round-to-round (compare/noise.ts) and more rounds never decide it.
   */
  launch?: true
  /**
   * A factor of another metric rather than a gated metric of its own: speculative decoding's decode tok/s is
   * acceptance length ÷ verify-step time. A factor has no gate entry; the verdict on the metric it is a factor of
   * judges it with that metric's limit and its own noise (compare/spec-split.ts).
   */
  factorOf?: 'decode'
  /**
   * Measured only for a cell whose workload has this key (`slo`: goodput needs latency targets; `turns`: prefix
   * reuse needs conversations). A cell without it is not gated on the metric, rather than missing it.
   */
  onlyWith?: 'slo' | 'turns'
}
