/**
 * The box around one steady round (core/round-host.ts): read from /proc at the round's start and end — uptime, the
 * CPUs' time, every process's CPU time (at most `MAX_PIDS` processes) — and in between `/proc/meminfo` and
 * `/proc/vmstat` every `BOX_SAMPLE_MS` (at most `MAX_BOX_SAMPLES` samples; only the lowest available memory and the
 * highest swap in use are kept), then the GPU compute processes once at the end. No shell, no child process but
 * `nvidia-smi` where the host has GPUs. This run's processes — this process and its descendants, and the process
 * groups it launched (the engine's) — are never named; the rest is judged by host/disturbance.ts.
 */
import type { GpuId, GpuScope, HostState } from '../core/host.js'
import type { MemoryFloor } from '../core/plan.js'
import type { BusyProcess, RoundGpuProcess, RoundHost } from '../core/round-host.js'
import type { WatchedRound } from '../core/telemetry.js'
import {
  parseCpuTimes,
  parseMemInfo,
  parseUptime,
  parseVmstat,
  readAllProcTimes,
  readProc,
  type CpuTimes,
  type ProcTimes,
} from '../io/proc-host.js'
import { disturbances } from './disturbance.js'
import { queryComputeApps, type Run } from './nvidia-smi.js'
import { markAllowed, markOutside } from './preflight.js'

export const BOX_SAMPLE_MS = 1000
export const MAX_BOX_SAMPLES = 3600
/** Processes read per snapshot; on a box with more, those past it go unseen. */
export const MAX_PIDS = 4096
/** Busiest other processes a round records. */
export const TOP_PROCESSES = 5
/** Parents followed up from a process looking for this one. */
const MAX_DEPTH = 64

export interface BoxWatchOptions {
  /** The engine's process groups and the others this run launched (read at each round's end). */
  groups: () => ReadonlySet<number>
  /** When this run launched the engine (`performance.now()` ms); undefined for a target attached by `url:`. */
  launchedAt: () => number | undefined
  /** The target's `memory-floor`. */
  floor?: MemoryFloor
  /** `nvidia-smi`, the preflight's state (its GPUs and processes), the target's GPUs and `allow-gpu-processes`. */
  gpu?: { smi: Run; preflight: HostState; ids: readonly GpuId[]; scope?: GpuScope; allow: readonly string[] }
  sampleMs?: number
  /** Cores another process may use before the round counts as disturbed (default host/disturbance.ts's `BUSY_CORES`). */
  busyCores?: number
  /** This process (default `process.pid`): it and its descendants are ours. */
  self?: number
  now?: () => number
}

interface Snapshot {
  at: number
  cpu?: CpuTimes
  procs: Map<number, ProcTimes>
  memory: ReturnType<typeof parseMemInfo>
  vm: ReturnType<typeof parseVmstat>
}

function snapshot(now: number): Snapshot {
  const text = readProc('/proc/stat')
  return {
    at: now,
    cpu: text === undefined ? undefined : parseCpuTimes(text),
    procs: readAllProcTimes(MAX_PIDS),
    memory: parseMemInfo(readProc('/proc/meminfo') ?? ''),
    vm: parseVmstat(readProc('/proc/vmstat') ?? ''),
  }
}

/** Starts watching the box for one round; the function returned ends it with the round's host state. */
export function watchBox(o: BoxWatchOptions): () => Promise<WatchedRound> {
  const now = o.now ?? (() => performance.now())
  const uptimeS = parseUptime(readProc('/proc/uptime') ?? '')
  const launchedAt = o.launchedAt()
  const start = snapshot(now())
  const low = lowWater(start.memory)
  const timer = setInterval(() => {
    low.add(parseMemInfo(readProc('/proc/meminfo') ?? ''))
    if (low.samples >= MAX_BOX_SAMPLES) clearInterval(timer)
  }, o.sampleMs ?? BOX_SAMPLE_MS)
  timer.unref()
  return async () => {
    clearInterval(timer)
    const end = snapshot(now())
    low.add(end.memory)
    const ours = ownedBy(end.procs, o.self ?? process.pid, o.groups())
    const gpuProcesses = o.gpu && (await newGpuProcesses(o.gpu, ours))
    const host: RoundHost = {
      ...(uptimeS !== undefined && { uptimeS }),
      ...(launchedAt === undefined ? { attached: true as const } : { launchAgeMs: Math.round(start.at - launchedAt) }),
      ...memoryAndSwap(start, end, low),
      ...(start.cpu && end.cpu && { cpu: cpuUse(start, end, ours) }),
      ...(gpuProcesses?.length && { gpuProcesses }),
      samples: low.samples,
    }
    const floorBytes = o.floor && floorOf(o.floor, end.memory.totalBytes)
    const disturbed = disturbances(host, { floorBytes, countCpu: launchedAt !== undefined, busyCores: o.busyCores })
    return { host: disturbed.length ? { ...host, disturbed } : host }
  }
}

function floorOf(floor: MemoryFloor, totalBytes: number | undefined): number | undefined {
  if (floor.kind === 'bytes') return floor.value
  return totalBytes === undefined ? undefined : totalBytes * floor.value
}

/** The lowest available memory and the highest swap in use over the samples. */
function lowWater(first: ReturnType<typeof parseMemInfo>) {
  const state = { samples: 0, minBytes: Infinity, swapUsed: -Infinity }
  const add = (m: ReturnType<typeof parseMemInfo>) => {
    state.samples++
    if (m.availableBytes !== undefined) state.minBytes = Math.min(state.minBytes, m.availableBytes)
    if (m.swapTotalBytes !== undefined && m.swapFreeBytes !== undefined)
      state.swapUsed = Math.max(state.swapUsed, m.swapTotalBytes - m.swapFreeBytes)
  }
  add(first)
  return {
    add,
    get samples() {
      return state.samples
    },
    get minBytes() {
      return Number.isFinite(state.minBytes) ? state.minBytes : undefined
    },
    get swapUsed() {
      return Number.isFinite(state.swapUsed) ? state.swapUsed : undefined
    },
  }
}

function memoryAndSwap(start: Snapshot, end: Snapshot, low: ReturnType<typeof lowWater>): Partial<RoundHost> {
  const before = start.memory.availableBytes
  const after = end.memory.availableBytes
  const minBytes = low.minBytes
  const memory =
    before !== undefined && after !== undefined && minBytes !== undefined
      ? { beforeBytes: before, afterBytes: after, minBytes }
      : undefined
  const delta = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : Math.max(0, b - a))
  const inPages = delta(start.vm.swapIn, end.vm.swapIn)
  const outPages = delta(start.vm.swapOut, end.vm.swapOut)
  const usedBytes = low.swapUsed
  const swap =
    usedBytes !== undefined && inPages !== undefined && outPages !== undefined
      ? { usedBytes, inPages, outPages }
      : undefined
  return { ...(memory && { memory }), ...(swap && { swap }) }
}

/**
 * The CPUs' busy share over the round and the busiest processes not ours. A process's CPU time over the round is its
 * ticks at the end less those at the start; one absent at the start, or whose pid now names another process (a
 * different start time), started during the round and counts from zero. Shares are of the round's ticks per core, so
 * no clock-tick rate is assumed: `/proc/stat` and `/proc/<pid>/stat` count in the same ticks.
 */
function cpuUse(start: Snapshot, end: Snapshot, ours: (pid: number) => boolean): RoundHost['cpu'] {
  const total = end.cpu!.total - start.cpu!.total
  const cores = end.cpu!.cores
  const busy = total > 0 ? Math.min(1, Math.max(0, (end.cpu!.busy - start.cpu!.busy) / total)) : 0
  const perCore = total / cores
  const top: BusyProcess[] = []
  for (const [pid, p] of end.procs) {
    if (perCore <= 0 || ours(pid)) continue
    const before = start.procs.get(pid)
    const ticks = before && before.startTime === p.startTime ? p.ticks - before.ticks : p.ticks
    if (ticks > 0) top.push({ pid, comm: p.comm.slice(0, 64), cores: round3(ticks / perCore) })
  }
  top.sort((a, b) => b.cores - a.cores)
  return { busy: round3(busy), cores, top: top.slice(0, TOP_PROCESSES) }
}

const round3 = (v: number) => Math.round(v * 1000) / 1000

/** Ours: this process and what descends from it, and every member of a process group this run launched. */
export function ownedBy(
  procs: ReadonlyMap<number, Pick<ProcTimes, 'ppid' | 'pgrp'>>,
  self: number,
  groups: ReadonlySet<number>,
): (pid: number) => boolean {
  return (pid) => {
    let at: number | undefined = pid
    for (let depth = 0; at !== undefined && at > 0 && depth < MAX_DEPTH; depth++) {
      const p = procs.get(at)
      if (at === self || groups.has(at) || (p && groups.has(p.pgrp))) return true
      at = p?.ppid
    }
    return false
  }
}

/** GPU compute processes at the round's end that were not there at preflight and are not ours, marked as preflight marks them. */
async function newGpuProcesses(
  gpu: NonNullable<BoxWatchOptions['gpu']>,
  ours: (pid: number) => boolean,
): Promise<RoundGpuProcess[]> {
  const seen = new Set((gpu.preflight.processes ?? []).map((p) => p.pid))
  const apps = ((await queryComputeApps(gpu.smi)) ?? []).filter((a) => !seen.has(a.pid) && !ours(a.pid))
  const state: HostState = {
    processes: apps.slice(0, 64).map((a) => {
      const index = gpu.ids.find((g) => g.uuid !== undefined && g.uuid === a.gpuUuid)?.index
      return { pid: a.pid, name: a.name.slice(0, 200), ...(index !== undefined && { gpu: index }), ours: false }
    }),
  }
  markAllowed(state, gpu.allow)
  if (gpu.scope) markOutside(state, gpu.scope)
  return (state.processes ?? []).map(({ ours: _ours, usedMemoryMiB: _mib, gpuUuid: _uuid, ...p }) => p)
}
