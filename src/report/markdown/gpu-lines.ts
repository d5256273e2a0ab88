/** The GPU line of each steady round the sampler watched: power, clocks, temperature, utilisation, energy per token. */
import type { RoundResult } from '../../core/measurements.js'
import type { Gauge, GpuRoundDevice } from '../../core/telemetry.js'
import { formatNumber } from '../../core/format.js'
import { scopeText } from '../../host/gpu-scope.js'
import { clip, escapeText } from '../escape.js'

const mean = (g: Gauge | undefined, unit: string) => (g ? `${formatNumber(g.mean)} ${unit}` : undefined)

/** `GPU 0 231 W (max 262 W), SM 1980 MHz (min …)`: gauges the GPU did not report are left out. */
function deviceText(d: GpuRoundDevice): string {
  const parts = [
    d.powerW && `${formatNumber(d.powerW.mean)} W (max ${formatNumber(d.powerW.max)} W)`,
    mean(d.smClockMhz, 'MHz SM'),
    mean(d.memClockMhz, 'MHz mem'),
    d.temperatureC && `${formatNumber(d.temperatureC.mean)} °C (max ${formatNumber(d.temperatureC.max)} °C)`,
    mean(d.utilizationPct, '% util'),
  ].filter(Boolean)
  return `GPU ${d.index} ${parts.join(', ') || 'no readings'}`
}

/**
 * Which GPUs the rounds' telemetry and energy count (`energy and telemetry over GPU 1 of 8 (…)`), then one line per
 * round with GPU telemetry (`round 2: GPU 0 … · 0.42 J/token`); none when no round has any.
 */
export function gpuLines(rounds: readonly RoundResult[]): string | undefined {
  const scopes = new Set(rounds.flatMap((r) => (r.gpu?.counted ? [scopeText(r.gpu.counted)] : [])))
  const counted = [...scopes].map((s) => `- energy and telemetry over ${escapeText(clip(s, 400))}`)
  const lines = rounds.flatMap((r) => {
    if (!r.gpu) return []
    const energy = r.metrics?.energy_j_per_token
    const parts = [
      r.gpu.devices.map(deviceText).join('; '),
      energy === undefined ? undefined : `${formatNumber(energy)} J/token`,
      r.gpu.clockDrop && escapeText(clip(r.gpu.clockDrop, 200)),
    ].filter(Boolean)
    return [`- round ${r.index}: ${parts.join(' · ')}`]
  })
  return lines.length ? [...counted, ...lines].join('\n') : undefined
}
