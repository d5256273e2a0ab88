/**
 * The box watch of one target's steady rounds (host/box-watch.ts) beside its GPU watch (host-check.ts): each round
 * records the host's state as `rounds[].host`, named by the target's `memory-floor`, its GPUs and
 * `allow-gpu-processes`; the engine's process group, the groups this run launched and a container's processes (the
 * runtime's child, not ours by group: server/container.ts containerPid) are ours. A disturbed box is
 * recorded, never a reason to measure the round again: that stays the GPU watch's (a slowdown, a clock drop).
 */
import type { GpuScope } from '../core/host.js'
import type { TargetPlan } from '../core/plan.js'
import type { RoundWatch } from '../core/telemetry.js'
import { hostGpuIds, nvidiaSmi, watchBox } from '../host/index.js'
import type { HostDeps, Preflight } from './host-check.js'

/** What the watch asks of the running engine at each round: when this run launched it, and its process group. */
export type EngineNow = () => { launchedAt?: number; pgid?: number; root?: number }

export interface BoxRoundOptions {
  target: TargetPlan
  preflight: Preflight
  deps: HostDeps
  scope?: GpuScope
  engine: EngineNow
  sampleMs?: number
}

export function boxRoundWatch(o: BoxRoundOptions): RoundWatch {
  const { target, preflight, deps, scope } = o
  const state = preflight.state
  const gpu = state.gpus?.length
    ? {
        smi: deps.smi ?? nvidiaSmi,
        preflight: state,
        ids: hostGpuIds(state),
        ...(scope && { scope }),
        allow: target.settings.allowGpuProcesses,
      }
    : undefined
  return async () => {
    const engine = o.engine()
    const end = watchBox({
      // A pid in the set is ours with its descendants: the group leaders, and a container's first process.
      groups: () => new Set([...(deps.groups ?? []), ...[engine.pgid, engine.root].filter((p) => p !== undefined)]),
      launchedAt: () => (target.external ? undefined : engine.launchedAt),
      floor: target.settings.memoryFloor,
      ...(gpu && { gpu }),
      ...(o.sampleMs !== undefined && { sampleMs: o.sampleMs }),
      ...(deps.busyCores !== undefined && { busyCores: deps.busyCores }),
    })
    return () => end()
  }
}

/** The GPU watch and the box watch around the same round: the GPU watch's record and verdict, and the box's `host`. */
export function withBoxWatch(gpu: RoundWatch | undefined, box: RoundWatch): RoundWatch {
  return async () => {
    const endGpu = await gpu?.()
    const endBox = await box()
    return async (window) => {
      const [a, b] = await Promise.all([endGpu?.(window), endBox(window).catch(() => undefined)])
      return { ...a, ...(b?.host && { host: b.host }) }
    }
  }
}
