/**
 * The host's state before a target launches, and what in it makes a measurement worthless: a GPU
 * compute process this run did not start on one of the target's GPUs (it shares the GPU with the engine),
 * or a clock slowdown already active on one of them (the box is throttled). Either is an infrastructure
 * error, never a regression. Another GPU's process or slowdown is recorded, not counted (gpu-scope.ts).
 */
import { readFile, readdir } from 'node:fs/promises'
import type { GpuId, GpuProcess, GpuScope, HostState } from '../core/host.js'
import { parseProcStat } from '../io/proc-stat.js'
import { globMatcher } from '../config/select.js'
import { scopeIndexes } from './gpu-scope.js'
import {
  nvidiaSmi,
  queryComputeApps,
  queryCuda,
  queryGpuIds,
  queryGpus,
  type ComputeApp,
  type Run,
} from './nvidia-smi.js'

export interface HostReaders {
  /** `nvidia-smi` with arguments (default: the one on PATH, bounded in time and output). */
  smi?: Run
  /** MemAvailable and MemTotal in bytes; NaN figures are left out. */
  memory?: () => Promise<{ availableBytes: number; totalBytes: number }>
  /** True for a process this run started. */
  ours?: (pid: number) => Promise<boolean>
  /** The cpufreq directory root (default `/sys/devices/system/cpu`). */
  cpuRoot?: string
}

const MAX_CPUS = 4096

export async function readHost(readers: HostReaders = {}): Promise<HostState> {
  const smi = readers.smi ?? nvidiaSmi
  const host: HostState = {}
  const gpu = await queryGpus(smi)
  if (gpu.gpus) {
    host.gpus = gpu.gpus
    const [cuda, apps, ids] = await Promise.all([queryCuda(smi), queryComputeApps(smi), queryGpuIds(smi)])
    if (cuda) host.cuda = cuda
    for (const id of ids ?? []) if (id.uuid && host.gpus[id.index]) host.gpus[id.index].uuid = id.uuid
    if (apps) host.processes = await Promise.all(apps.map((a) => gpuProcess(a, host, readers.ours)))
  } else {
    host.noGpu = gpu.missing ? 'no GPU information: nvidia-smi not found' : `no GPU information: ${gpu.reason}`
  }
  const memory = await readers.memory?.().catch(() => undefined)
  if (memory && Number.isFinite(memory.availableBytes) && Number.isFinite(memory.totalBytes)) host.memory = memory
  const governors = await readGovernors(readers.cpuRoot ?? '/sys/devices/system/cpu')
  if (governors.length) host.governors = governors
  return host
}

/** One compute process as the preflight records it: the GPU it is on by index, and whether this run started it. */
async function gpuProcess(app: ComputeApp, host: HostState, ours: HostReaders['ours']): Promise<GpuProcess> {
  const gpu = app.gpuUuid === undefined ? -1 : (host.gpus ?? []).findIndex((g) => g.uuid === app.gpuUuid)
  return { ...app, ...(gpu >= 0 && { gpu }), ours: (await ours?.(app.pid)) ?? false }
}

/** The host's GPUs by `nvidia-smi` index, with their UUIDs where the driver gave them. */
export function hostGpuIds(host: HostState): GpuId[] {
  return (host.gpus ?? []).map((g, index) => (g.uuid === undefined ? { index } : { index, uuid: g.uuid }))
}

/** The distinct `scaling_governor` values; none in a VM without cpufreq. */
export async function readGovernors(root: string): Promise<string[]> {
  const cpus = (await readdir(root).catch(() => [] as string[])).filter((n) => /^cpu\d+$/.test(n)).slice(0, MAX_CPUS)
  const values = await Promise.all(
    cpus.map((cpu) =>
      readFile(`${root}/${cpu}/cpufreq/scaling_governor`, 'utf8').then(
        (s) => s.trim().slice(0, 64),
        () => '',
      ),
    ),
  )
  return [...new Set(values.filter(Boolean))].sort()
}

export interface PreflightOptions {
  /** A target we attach to by URL runs its engine outside this run: its GPU processes are expected. */
  attached: boolean
  /** The target's GPUs: a slowdown on another is not the target's. Absent: every GPU. */
  scope?: GpuScope
}

/**
 * Marks the processes on a GPU the target does not use (`outside`): recorded, never counted against it. A process
 * whose GPU is unknown is left unmarked, so it still counts.
 */
export function markOutside(host: HostState, scope: GpuScope): GpuProcess[] {
  const inside = scopeIndexes(scope)
  const outside: GpuProcess[] = []
  host.processes = host.processes?.map((p) => {
    if (p.ours || p.gpu === undefined || inside.has(p.gpu)) return p
    const marked = { ...p, outside: true }
    outside.push(marked)
    return marked
  })
  return outside
}

/**
 * Marks the processes `allow-gpu-processes` expects on this host. A glob matches the name as
 * nvidia-smi prints it (often a full path) or its last path segment: `ollama`, `python*`, `/opt/dcgm/**`.
 */
export function markAllowed(host: HostState, globs: readonly string[]): GpuProcess[] {
  if (!globs.length || !host.processes) return []
  const matchers = globs.map(globMatcher)
  const allowed: GpuProcess[] = []
  host.processes = host.processes.map((p) => {
    const base = p.name.slice(p.name.lastIndexOf('/') + 1)
    if (p.ours || !matchers.some((m) => m(p.name) || m(base))) return p
    const marked = { ...p, allowed: true }
    allowed.push(marked)
    return marked
  })
  return allowed
}

/** Why the target must not be measured on this host now, or undefined. */
export function preflightProblem(host: HostState, o: PreflightOptions): string | undefined {
  const stray = o.attached ? [] : (host.processes ?? []).filter((p) => !p.ours && !p.allowed && !p.outside)
  // Which GPU a process is on says something only on a box of several.
  const several = (host.gpus?.length ?? 0) > 1
  if (stray.length) {
    const named = stray
      .slice(0, 3)
      .map((p) => `pid ${p.pid} ${p.name}${p.gpu === undefined || !several ? '' : ` on GPU ${p.gpu}`}`)
      .join(', ')
    return `GPU busy: ${named}${stray.length > 3 ? ` and ${stray.length - 3} more` : ''} (not started by this run)`
  }
  const inside = o.scope && scopeIndexes(o.scope)
  const throttled = (host.gpus ?? []).flatMap((g, i) =>
    g.active.length && (!inside || inside.has(i)) ? [`GPU ${i} ${g.active.join(', ')}`] : [],
  )
  if (throttled.length) return `GPU throttled before launch: ${throttled.join('; ')}`
  return undefined
}

/** Reads a process's group from `/proc/<pid>/stat` (io/proc-stat.ts). */
export async function processGroup(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  return stat ? parseProcStat(stat)?.pgrp : undefined
}

/** A process is ours when it leads, or belongs to, a process group this run launched. */
export function oursBy(groups: ReadonlySet<number>): (pid: number) => Promise<boolean> {
  return async (pid) => groups.has(pid) || groups.has((await processGroup(pid)) ?? -1)
}
