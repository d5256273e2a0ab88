/**
 * Watching one round for GPU slowdowns: the slowdown counters (cumulative microseconds) read before and
 * after the round, and the active reasons read after it. A counter that moved, or a reason active at the
 * end, means the GPU ran slower for part of the round, so the round measured the box, not the engine.
 */
import { SLOWDOWN_REASONS, type GpuState, type SlowdownReason } from '../core/host.js'
import { formatDuration } from '../core/format.js'
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

/** Reads the GPUs before a round; the returned function reads them after it and says what slowed it, if anything. */
export async function watchRound(smi: Run): Promise<() => Promise<string | undefined>> {
  const before = (await queryGpus(smi)).gpus
  return async () => {
    const after = (await queryGpus(smi)).gpus
    if (!before || !after) return undefined
    const moved = slowdowns(before, after)
    return moved.length ? moved.join('; ') : undefined
  }
}
