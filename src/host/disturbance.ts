/**
 * When the box disturbed a round: the rule over a round's host state (core/round-host.ts). A round is disturbed when,
 * during it,
 * - a process that is not this run's and not the engine's used more than `BUSY_CORES` (50 %) of a core on average:
 *   on a shared box a co-tenant's load costs a served model 8–30 % of its speed (community DGX Spark benchmark notes);
 *   not counted for a target attached by `url:`, whose own processes this run cannot tell apart from others';
 * - at least `SWAP_IN_PAGES` (256 pages, 1 MiB at 4 KiB a page) were swapped in: something waited on the disk for
 *   memory it had;
 * - available memory fell below the target's `memory-floor`;
 * - a GPU compute process that was not on the box at preflight, is not this run's, not allowed by
 *   `allow-gpu-processes` and on one of the target's GPUs appeared.
 * The verdict is not changed by it; the cell's verdict names it (`verdict.disturbed`), so a pass under it is not a
 * clean pass.
 */
import { busyText, memoryFloorText, swapText, type RoundHost } from '../core/round-host.js'

/** Cores another process may use on average during a round before the round counts as disturbed. */
export const BUSY_CORES = 0.5
/** Pages swapped in during a round from which it counts as disturbed. */
export const SWAP_IN_PAGES = 256

export interface DisturbanceRules {
  /** The target's `memory-floor` in bytes; absent: not checked. */
  floorBytes?: number
  /** Count other processes' CPU use (false for an attached `url:` target). */
  countCpu: boolean
  /** Cores another process may use before the round counts as disturbed (default `BUSY_CORES`). */
  busyCores?: number
}

/** What disturbed the round, worded for the verdict line; empty when nothing did. */
export function disturbances(host: Omit<RoundHost, 'disturbed'>, rules: DisturbanceRules): string[] {
  const found: string[] = []
  const busy = rules.busyCores ?? BUSY_CORES
  if (rules.countCpu) for (const p of host.cpu?.top ?? []) if (p.cores > busy) found.push(busyText(p))
  const swapIn = host.swap?.inPages ?? 0
  if (swapIn >= SWAP_IN_PAGES) found.push(swapText(swapIn))
  const min = host.memory?.minBytes
  if (rules.floorBytes !== undefined && min !== undefined && min < rules.floorBytes)
    found.push(memoryFloorText(min, rules.floorBytes))
  for (const p of host.gpuProcesses ?? []) {
    if (p.allowed || p.outside) continue
    found.push(`GPU process ${p.name} (pid ${p.pid}) appeared${p.gpu === undefined ? '' : ` on GPU ${p.gpu}`}`)
  }
  return found
}
