/**
 * The host's state before a target launches, and what in it makes a measurement worthless: a GPU
 * compute process this run did not start (it shares the GPU with the engine), or a clock slowdown
 * already active (the box is throttled). Either is an infrastructure error, never a regression.
 */
import { readFile, readdir } from 'node:fs/promises'
import type { GpuProcess, HostState } from '../core/host.js'
import { parseProcStat } from '../core/proc-stat.js'
import { globMatcher } from '../config/select.js'
import { nvidiaSmi, queryComputeApps, queryCuda, queryGpus, type Run } from './nvidia-smi.js'

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
    const [cuda, apps] = await Promise.all([queryCuda(smi), queryComputeApps(smi)])
    if (cuda) host.cuda = cuda
    if (apps)
      host.processes = await Promise.all(
        apps.map(async (a): Promise<GpuProcess> => ({ ...a, ours: (await readers.ours?.(a.pid)) ?? false })),
      )
  } else {
    host.noGpu = gpu.missing ? 'no GPU information: nvidia-smi not found' : `no GPU information: ${gpu.reason}`
  }
  const memory = await readers.memory?.().catch(() => undefined)
  if (memory && Number.isFinite(memory.availableBytes) && Number.isFinite(memory.totalBytes)) host.memory = memory
  const governors = await readGovernors(readers.cpuRoot ?? '/sys/devices/system/cpu')
  if (governors.length) host.governors = governors
  return host
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
  const stray = o.attached ? [] : (host.processes ?? []).filter((p) => !p.ours && !p.allowed)
  if (stray.length) {
    const named = stray
      .slice(0, 3)
      .map((p) => `pid ${p.pid} ${p.name}`)
      .join(', ')
    return `GPU busy: ${named}${stray.length > 3 ? ` and ${stray.length - 3} more` : ''} (not started by this run)`
  }
  const throttled = (host.gpus ?? []).flatMap((g, i) => (g.active.length ? [`GPU ${i} ${g.active.join(', ')}`] : []))
  if (throttled.length) return `GPU throttled before launch: ${throttled.join('; ')}`
  return undefined
}

/** Reads a process's group from `/proc/<pid>/stat` (core/proc-stat.ts). */
export async function processGroup(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  return stat ? parseProcStat(stat)?.pgrp : undefined
}

/** A process is ours when it leads, or belongs to, a process group this run launched. */
export function oursBy(groups: ReadonlySet<number>): (pid: number) => Promise<boolean> {
  return async (pid) => groups.has(pid) || groups.has((await processGroup(pid)) ?? -1)
}
