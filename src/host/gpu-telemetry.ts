/**
 * One round's GPU telemetry from the rows of an `nvidia-smi --query-gpu=… -lms` loop: per GPU the mean and maximum
 * of each gauge over the samples taken inside the round, the energy over the round, and whether the SM clock
 * dropped below its own level during it.
 *
 * - The rows are the target's GPUs' alone (throttle.ts keeps those gpu-scope.ts chose), so a neighbour's GPU never
 *   enters its gauges or its energy.
 * - Energy is ∫ power dt over the round's window, per GPU, summed over the GPUs that report power: the trapezoid
 *   between consecutive samples inside the window, and at each end the nearest inside sample held to the edge.
 *   Samples outside the window are not used: the one before the first request and the one after the last token
 *   see an idle GPU. A constant power P over a window of T seconds integrates to exactly P × T; a power that
 *   changes errs by at most its change over one sample interval, held over the two end pieces.
 * - A value the GPU reports as `[N/A]`/`[Not Supported]` is absent from the sample, so a gauge no sample has is
 *   absent from the round, never 0 (nvidia-smi.ts).
 * - The SM clock dropped when at least `DROP_SAMPLES` consecutive busy samples ran below `DROP_SHARE` of the
 *   median of the round's busy samples: a box that down-clocks without a slowdown counter moving (the preflight's
 *   counters cover the rest). A sample is busy unless its utilisation is under half the round's median: a GPU
 *   between requests clocks down by design, which is no drop. The level is the round's own, not the previous
 *   rounds': a cell at another concurrency draws other power and runs at another clock under a power cap.
 */
import type { GpuRoundDevice, Gauge, RoundGpu, RoundWindow } from '../core/telemetry.js'
import { median } from '../core/stats.js'
import { numberValue } from './nvidia-smi.js'

/** The fields each row of the sampler's query carries, in order (`nvidia-smi --help-query-gpu`). */
export const SAMPLE_FIELDS = ['index', 'power.draw', 'clocks.sm', 'clocks.mem', 'temperature.gpu', 'utilization.gpu']

const GAUGES = ['powerW', 'smClockMhz', 'memClockMhz', 'temperatureC', 'utilizationPct'] as const
type GaugeName = (typeof GAUGES)[number]

/** One row: one GPU at one moment (`at`, ms on the request records' clock). */
export type GpuSample = { at: number; index: number } & Partial<Record<GaugeName, number>>

export const DROP_SHARE = 0.9
export const DROP_SAMPLES = 2

/** A row of the query, or undefined for a line that is not one (a warning, a cut line). */
export function parseSample(line: string, at: number): GpuSample | undefined {
  const f = line.split(',')
  const index = numberValue(f[0])
  if (f.length !== SAMPLE_FIELDS.length || index === undefined || !Number.isInteger(index)) return undefined
  const sample: GpuSample = { at, index }
  GAUGES.forEach((name, i) => {
    const v = numberValue(f[i + 1])
    if (v !== undefined) sample[name] = v
  })
  return sample
}

const gauge = (values: readonly number[]): Gauge | undefined =>
  values.length ? { mean: values.reduce((s, v) => s + v, 0) / values.length, max: Math.max(...values) } : undefined

/** The round's telemetry; undefined when no sample fell inside the window. */
export function summarizeGpu(samples: readonly GpuSample[], window: RoundWindow): RoundGpu | undefined {
  const inside = samples.filter((s) => s.at >= window.startMs && s.at <= window.endMs)
  if (!inside.length) return undefined
  const indexes = [...new Set(inside.map((s) => s.index))].sort((a, b) => a - b)
  const perGpu = indexes.map((index) => inside.filter((s) => s.index === index))
  const devices = perGpu.map((rows) => {
    const device: GpuRoundDevice = { index: rows[0].index, samples: rows.length }
    for (const name of GAUGES) {
      const g = gauge(rows.flatMap((s) => (s[name] === undefined ? [] : [s[name]])))
      if (g) device[name] = g
    }
    return device
  })
  const energies = perGpu.flatMap((rows) => {
    const points = rows.flatMap((s) => (s.powerW === undefined ? [] : [{ at: s.at, value: s.powerW }]))
    return points.length ? [integrate(points, window)] : []
  })
  const gpu: RoundGpu = { devices }
  if (energies.length) gpu.energyJ = energies.reduce((s, e) => s + e, 0)
  const drop = perGpu.map(clockDrop).find(Boolean)
  if (drop) gpu.clockDrop = drop
  return gpu
}

/** ∫ value dt over the window in value·seconds: trapezoids between the points, the end points held to the edges. */
export function integrate(points: ReadonlyArray<{ at: number; value: number }>, window: RoundWindow): number {
  const sorted = [...points].sort((a, b) => a.at - b.at)
  const first = sorted[0]
  const last = sorted[sorted.length - 1]
  let sum = first.value * (first.at - window.startMs) + last.value * (window.endMs - last.at)
  for (let i = 1; i < sorted.length; i++)
    sum += ((sorted[i - 1].value + sorted[i].value) / 2) * (sorted[i].at - sorted[i - 1].at)
  return sum / 1000
}

/** The rule in the header, for one GPU's samples in time order; undefined when the clock held. */
export function clockDrop(rows: readonly GpuSample[]): string | undefined {
  const utilization = rows.flatMap((s) => (s.utilizationPct === undefined ? [] : [s.utilizationPct]))
  const busyFrom = utilization.length ? median(utilization) / 2 : 0
  const busy = rows.filter((s) => s.smClockMhz !== undefined && (s.utilizationPct ?? busyFrom) >= busyFrom)
  if (busy.length < DROP_SAMPLES) return undefined
  const level = median(busy.map((s) => s.smClockMhz!))
  // The longest run of consecutive low samples: busy.slice(from, from + length).
  let from = 0
  let length = 0
  for (let i = 0, start = 0; i < busy.length; i++) {
    if (busy[i].smClockMhz! >= DROP_SHARE * level) start = i + 1
    else if (i + 1 - start > length) [from, length] = [start, i + 1 - start]
  }
  if (length < DROP_SAMPLES) return undefined
  const worst = busy.slice(from, from + length)
  const lowest = Math.min(...worst.map((s) => s.smClockMhz!))
  const seconds = ((worst[worst.length - 1].at - worst[0].at) / 1000).toFixed(1)
  return `GPU ${rows[0].index} SM clock down to ${lowest} MHz for ${worst.length} samples (${seconds} s), under ${DROP_SHARE * 100} % of its round median ${level} MHz`
}
