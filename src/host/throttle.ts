/**
 * Watching one round for GPU slowdowns: the slowdown counters (cumulative microseconds) read before and
 * after the round, and the active reasons read after it. A counter that moved, or a reason active at the
 * end, means the GPU ran slower for part of the round, so the round measured the box, not the engine. So does
 * an SM clock that dropped below its own level during the round without a counter (gpu-telemetry.ts).
 */
import { SLOWDOWN_REASONS, type GpuState, type SlowdownReason } from '../core/host.js'
import { formatDuration } from '../core/format.js'
import type { RoundWindow, WatchedRound } from '../core/telemetry.js'
import type { GpuSampler } from './gpu-sampler.js'
import { summarizeGpu } from './gpu-telemetry.js'
import { queryGpus, type Run } from './nvidia-smi.js'

type Counters = Partial<Record<SlowdownReason, number>>

/** What moved between two readings of the same GPUs, e.g. `GPU 0 sw_thermal_slowdown +1.2 s`; empty when nothing did. */
export function slowdowns(before: readonly GpuState[], after: readonly GpuState[]): string[] {
  return after.flatMap((gpu, i) => {
    const moved = movedCounters(before[i]?.counters, gpu.counters)
    const active = gpu.active.filter((r) => !moved.some((m) => m.startsWith(r))).map((r) => `${r} active`)
    const all = [...moved, ...active]
    return all.length ? [`GPU ${i} ${all.join(', ')}`] : []
  })
}

function movedCounters(before: Counters | undefined, after: Counters | undefined): string[] {
  if (!before || !after) return []
  return SLOWDOWN_REASONS.flatMap((r) => {
    const delta = (after[r] ?? 0) - (before[r] ?? 0)
    return before[r] !== undefined && delta > 0 ? [`${r} +${formatDuration(delta / 1000)}`] : []
  })
}

/**
 * Reads the GPUs before a round and starts its sampler, if any; the returned function stops the sampler once the
 * round ended and reads the GPUs again: what slowed the round (a slowdown counter that moved, a reason active at
 * the end, the SM clock dropping below its level) and what the GPUs did during it.
 */
export async function watchRound(
  smi: Run,
  startSampler?: () => GpuSampler,
): Promise<(window: RoundWindow) => Promise<WatchedRound>> {
  const before = (await queryGpus(smi)).gpus
  // Started after the reading before, so its first row lands as near the round's start as it can.
  const sampler = startSampler?.()
  return async (window) => {
    const samples = (await sampler?.stop()) ?? []
    const after = (await queryGpus(smi)).gpus
    const gpu = summarizeGpu(samples, window)
    const disturbed = [...(before && after ? slowdowns(before, after) : []), ...(gpu?.clockDrop ? [gpu.clockDrop] : [])]
    return { ...(disturbed.length && { disturbed: disturbed.join('; ') }), ...(gpu && { gpu }) }
  }
}
