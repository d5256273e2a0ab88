/**
 * Reading the GPUs through `nvidia-smi` queries (CSV, no header, no units). Any value may be `[N/A]`
 * (GB10 reports its unified memory that way) or `[Not Supported]`: such a value is absent, never zero.
 * Field names follow `nvidia-smi --help-query-gpu` and `--help-query-compute-apps` (NVIDIA's nvidia-smi(1) manual,
 * docs.nvidia.com/deploy/nvidia-smi): `--query-gpu=index,uuid` names each GPU as CUDA_VISIBLE_DEVICES may (an index
 * or a `GPU-…` UUID), and `--query-compute-apps=pid,gpu_uuid,…` says which GPU each compute process is on. Drivers
 * before 535 spell the slowdown reasons `clocks_throttle_reasons.*`, so a query the driver rejects is asked again
 * with the old names.
 */
import { SLOWDOWN_REASONS, type GpuId, type GpuState, type SlowdownReason } from '../core/host.js'
import { runCommand, type CommandResult } from './command.js'

export type Run = (args: readonly string[]) => Promise<CommandResult>

const STATE_FIELDS = ['name', 'driver_version', 'clocks.sm', 'clocks.max.sm', 'power.draw', 'temperature.gpu'] as const

function stateQuery(prefix: string): string {
  return [...STATE_FIELDS, `${prefix}.active`, ...SLOWDOWN_REASONS.map((r) => `${prefix}.${r}`)].join(',')
}

const csv = (fields: string) => [`--query-gpu=${fields}`, '--format=csv,noheader,nounits']

/** A CSV value, or undefined for `[N/A]`, `N/A`, `[Not Supported]`, `[Unknown Error]` and empty. */
export function value(raw: string | undefined): string | undefined {
  const v = raw?.trim()
  if (!v || /^\[.*\]$/.test(v) || v === 'N/A') return undefined
  return v
}

export function numberValue(raw: string | undefined): number | undefined {
  const v = value(raw)
  if (v === undefined) return undefined
  const n = Number(v)
  return Number.isFinite(n) ? n : undefined
}

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)

/** One GPU per line of the state query. */
export function parseGpuStates(stdout: string): GpuState[] {
  return lines(stdout).map((line) => {
    const f = line.split(',')
    const gpu: GpuState = { active: SLOWDOWN_REASONS.filter((_, i) => value(f[7 + i]) === 'Active') }
    const set = <K extends keyof GpuState>(key: K, v: GpuState[K] | undefined) => {
      if (v !== undefined) gpu[key] = v
    }
    set('name', value(f[0]))
    set('driver', value(f[1]))
    set('smClockMhz', numberValue(f[2]))
    set('maxSmClockMhz', numberValue(f[3]))
    set('powerW', numberValue(f[4]))
    set('temperatureC', numberValue(f[5]))
    set('activeMask', value(f[6]))
    return gpu
  })
}

/** Per GPU, the cumulative slowdown counters (microseconds) the driver reports. */
export function parseCounters(stdout: string): Array<Partial<Record<SlowdownReason, number>>> {
  return lines(stdout).map((line) => {
    const f = line.split(',')
    const counters: Partial<Record<SlowdownReason, number>> = {}
    SLOWDOWN_REASONS.forEach((reason, i) => {
      const n = numberValue(f[i])
      if (n !== undefined) counters[reason] = n
    })
    return counters
  })
}

/** The GPUs' state; the old field names when the driver does not know the new ones. */
export async function queryGpus(run: Run): Promise<{ gpus?: GpuState[]; reason?: string; missing?: boolean }> {
  let result = await run(csv(stateQuery('clocks_event_reasons')))
  if (!result.ok && !result.missing) result = await run(csv(stateQuery('clocks_throttle_reasons')))
  if (!result.ok) return { reason: result.reason, missing: result.missing }
  const gpus = parseGpuStates(result.stdout)
  const counters = await queryCounters(run)
  for (const [i, gpu] of gpus.entries())
    if (counters?.[i] && Object.keys(counters[i]).length) gpu.counters = counters[i]
  return { gpus }
}

/** The slowdown counters, per GPU; undefined where the driver has none. */
export async function queryCounters(run: Run): Promise<Array<Partial<Record<SlowdownReason, number>>> | undefined> {
  const result = await run(csv(SLOWDOWN_REASONS.map((r) => `clocks_event_reasons_counters.${r}`).join(',')))
  return result.ok ? parseCounters(result.stdout) : undefined
}

/** `index, uuid` per line: each GPU's index and UUID; a line without an integer index is left out. */
export function parseGpuIds(stdout: string): GpuId[] {
  return lines(stdout).flatMap((line) => {
    const f = line.split(',')
    const index = numberValue(f[0])
    if (index === undefined || !Number.isInteger(index) || index < 0) return []
    const uuid = value(f[1])
    return [uuid === undefined ? { index } : { index, uuid }]
  })
}

/** The GPUs' indexes and UUIDs; undefined when the driver does not answer. */
export async function queryGpuIds(run: Run): Promise<GpuId[] | undefined> {
  const result = await run(csv('index,uuid'))
  return result.ok ? parseGpuIds(result.stdout) : undefined
}

export interface ComputeApp {
  pid: number
  name: string
  usedMemoryMiB?: number
  /** The UUID of the GPU it runs on. */
  gpuUuid?: string
}

/** `pid, gpu_uuid, process_name, used_memory` per line; a name may itself hold commas. */
export function parseComputeApps(stdout: string): ComputeApp[] {
  return lines(stdout).flatMap((line) => {
    const f = line.split(',')
    const pid = numberValue(f[0])
    if (pid === undefined || f.length < 4) return []
    const used = numberValue(f[f.length - 1]?.replace(/\s*MiB$/, ''))
    const app: ComputeApp = { pid, name: f.slice(2, -1).join(',').trim() }
    const uuid = value(f[1])
    if (uuid !== undefined) app.gpuUuid = uuid
    if (used !== undefined) app.usedMemoryMiB = used
    return [app]
  })
}

export async function queryComputeApps(run: Run): Promise<ComputeApp[] | undefined> {
  const result = await run([
    '--query-compute-apps=pid,gpu_uuid,process_name,used_memory',
    '--format=csv,noheader,nounits',
  ])
  return result.ok ? parseComputeApps(result.stdout) : undefined
}

/** The CUDA version from the plain `nvidia-smi` header (`CUDA Version: 13.0`). */
export async function queryCuda(run: Run): Promise<string | undefined> {
  const result = await run([])
  return result.ok ? /CUDA Version:\s*([0-9][0-9.]*)/.exec(result.stdout)?.[1] : undefined
}

export const nvidiaSmi: Run = (args) => runCommand('nvidia-smi', args)
