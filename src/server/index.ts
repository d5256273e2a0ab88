// CONTRACT STUB — the server helper replaces the bodies; keep the exported names and shapes.
import type { MemoryGuardOptions, RunningTarget, StartOptions } from './types.js'
export type { ExitInfo, MemInfo, MemoryGuardOptions, RunningTarget, StartOptions } from './types.js'

/** Launch (or attach to a `url:` target), wait until ready, run the smoke request. Throws StartError. */
export async function startTarget(_options: StartOptions): Promise<RunningTarget> {
  throw new Error('not implemented')
}

/** Sample MemAvailable every interval; call onTrip once when it falls below the floor. */
export function startMemoryGuard(_options: MemoryGuardOptions): { stop(): void } {
  throw new Error('not implemented')
}

/** Post-step safety net: SIGTERM then SIGKILL every saved process group still alive. */
export async function killProcessGroups(_pgids: number[], _graceMs?: number): Promise<number[]> {
  throw new Error('not implemented')
}

/** Sync and drop the page cache (root only); returns a warning text when it could not. */
export async function dropCaches(): Promise<string | undefined> {
  throw new Error('not implemented')
}
