/**
 * Watching one round for GPU slowdowns: the slowdown counters (cumulative microseconds) read before and
 * after the round, and the active reasons read after it. A counter that moved, or a reason active at the
 * end, means the GPU ran slower for part of the round, so the round measured the box, not the engine. So does
 * an SM clock that dropped below its own level during the round without a counter (gpu-telemetry.ts).
 */
import { SLOWDOWN_REASONS, type GpuScope, type GpuState, type SlowdownReason } from '../core/host.js'
import { formatDuration } from '../core/format.js'
import type { RoundWindow, WatchedRound } from '../core/telemetry.js'
import type { GpuSampler } from './gpu-sampler.js'
import { scopeIndexes } from './gpu-scope.js'
import { summarizeGpu } from './gpu-telemetry.js'
import { queryGpus, type Run } from './nvidia-smi.js'

type Counters = Partial<Record<SlowdownReason, number>>

/**
 * What moved between two readings of the same GPUs, e.g. `GPU 0 sw_thermal_slowdown +1.2 s`, on the GPUs in `keep`
 * (every GPU without it); empty when nothing did.
 */
export function slowdowns(
  before: readonly GpuState[],
  after: readonly GpuState[],
  keep?: ReadonlySet<number>,
): string[] {
  return after.flatMap((gpu, i) => {
    if (keep && !keep.has(i)) return []
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
 * the end, the SM clock dropping below its level) and what the GPUs did during it. With a scope, only the target's
 * GPUs count (gpu-scope.ts): the record names them (`counted`), and the sampler's rows are theirs alone.
 */
export async function watchRound(
  smi: Run,
  startSampler?: () => GpuSampler,
  scope?: GpuScope,
): Promise<(window: RoundWindow) => Promise<WatchedRound>> {
  const keep = scope && scopeIndexes(scope)
  const before = (await queryGpus(smi)).gpus
  // Started after the reading before, so its first row lands as near the round's start as it can.
  const sampler = startSampler?.()
  return async (window) => {
    const samples = ((await sampler?.stop()) ?? []).filter((s) => !keep || keep.has(s.index))
    const after = (await queryGpus(smi)).gpus
    const summary = summarizeGpu(samples, window)
    const gpu = summary && scope ? { ...summary, counted: scope } : summary
    const moved = before && after ? slowdowns(before, after, keep) : []
    const disturbed = [...moved, ...(gpu?.clockDrop ? [gpu.clockDrop] : [])]
    return { ...(disturbed.length && { disturbed: disturbed.join('; ') }), ...(gpu && { gpu }) }
  }
}
