/**
 * The host's state during one steady round as the results file records it (`rounds[].host`): what moves speed on a
 * shared box — how long the box has been up, how long ago the engine was launched, available memory before and after,
 * swap, the CPU's load and the other processes that used it, other GPU processes — and, by the rule of
 * host/disturbance.ts, what of it disturbed the round, in the words below. A disturbed round is recorded, never
 * measured again: the cell's verdict names it (`verdict.disturbed`) and a pass under it is not a clean pass.
 */
import { formatBytes } from './format.js'

/** A process that is not this run's and not the engine's, with the CPU it used during the round. */
export interface BusyProcess {
  pid: number
  /** Its name as `/proc/<pid>/stat` gives it (`comm`, at most 15 bytes, chosen by the process). */
  comm: string
  /** CPU time over the round's wall time: 1 is one core busy the whole round. */
  cores: number
}

/** A GPU compute process seen at the round's end that was not on the box at preflight and is not this run's. */
export interface RoundGpuProcess {
  pid: number
  name: string
  gpu?: number
  /** Matched by `allow-gpu-processes`: recorded, not counted. */
  allowed?: boolean
  /** On a GPU the target does not use: recorded, not counted. */
  outside?: boolean
}

export interface RoundHost {
  /** Seconds the box had been up at the round's start (`/proc/uptime`). */
  uptimeS?: number
  /** Milliseconds from this run's launch of the engine to the round's start. */
  launchAgeMs?: number
  /** The engine was not launched by this run (a `url:` target): how long it has run is not known. */
  attached?: true
  /** MemAvailable at the round's start and end, and its lowest sample during the round (bytes). */
  memory?: { beforeBytes: number; afterBytes: number; minBytes: number }
  /** Swap in use at its highest sample (bytes), and pages swapped in and out during the round (`/proc/vmstat`). */
  swap?: { usedBytes: number; inPages: number; outPages: number }
  /**
   * The CPUs over the round (`/proc/stat`): the busy share of all of them (0–1, ours included), how many there are, and
   * the processes not ours that used the most of them, busiest first.
   */
  cpu?: { busy: number; cores: number; top: BusyProcess[] }
  /** GPU compute processes that were not there at preflight and are not this run's (`nvidia-smi`, at the round's end). */
  gpuProcesses?: RoundGpuProcess[]
  /** Samples of memory and swap taken during the round, start and end included. */
  samples: number
  /** What disturbed the round, by the rule of host/disturbance.ts, in the words below (`busyText`, `swapText` …). */
  disturbed?: string[]
}

/** `stress (pid 123) used 98 % of a core during the round`, or `… used 3.9 cores …` past one. */
export function busyText(p: BusyProcess): string {
  const used = p.cores > 1.05 ? `${p.cores.toFixed(1)} cores` : `${Math.round(p.cores * 100)} % of a core`
  return `${p.comm} (pid ${p.pid}) used ${used} during the round`
}

/** `1,024 pages swapped in during the round`. */
export function swapText(pages: number): string {
  return `${pages.toLocaleString('en-US')} pages swapped in during the round`
}

/** How a fall of available memory under the target's floor begins, whatever the figures. */
export const MEMORY_FELL = 'available memory fell to'

/** `available memory fell to 1.5GiB, under the memory floor of 2GiB`. */
export function memoryFloorText(minBytes: number, floorBytes: number): string {
  return `${MEMORY_FELL} ${formatBytes(minBytes)}, under the memory floor of ${formatBytes(floorBytes)}`
}
