/**
 * SIGINT (Ctrl-C) and SIGTERM during a run, the action's or the CLI's. The first signal aborts the
 * run, whose teardown stops every launched engine's process group (SIGTERM, then SIGKILL after the
 * grace: llama-server ignores one SIGTERM while a stream is in flight) and writes the results it
 * has. A second signal does not wait for that: every group launched so far that is still ours gets
 * SIGKILL at once (the Actions runner cancels a job with SIGINT, then SIGTERM 7.5 s later). "Still
 * ours" is the teardown's rule (server/group-identity.ts): the leader is the process we started, by
 * pid and start time; a group torn down already may have lent its id to a stranger since. The exit
 * code is the shell's for a signal, 128 + its number (130 for SIGINT, 143 for SIGTERM).
 */
import type { Logger } from '../core/log.js'
import { checkGroup, type GroupIdentity } from '../server/index.js'

const CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 }

export interface SignalCancel {
  signal: AbortSignal
  /** Remember a launched process group and its leader's start time, for the second signal. */
  onSpawn(pgid: number, start?: number): void
  /** 130 or 143 once a signal came, else undefined. */
  exitCode(): number | undefined
  /** Removes the handlers. */
  dispose(): void
}

export function cancelOnSignals(log: Logger, kill: (pgid: number) => void = killGroup): SignalCancel {
  const abort = new AbortController()
  const groups: GroupIdentity[] = []
  let received: NodeJS.Signals | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) {
      const ours = groups.filter((g) => ['ours', 'unchecked'].includes(checkGroup(g)))
      log.warn(`received ${signal} again: killing ${ours.length} launched process group(s) with SIGKILL`)
      for (const g of ours) kill(g.pgid)
      return
    }
    received = signal
    log.warn(`received ${signal}: stopping measurements and tearing every launched engine down (again to kill at once)`)
    abort.abort(new Error(`cancelled by ${signal}`))
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: abort.signal,
    onSpawn: (pgid, start) => void groups.push({ pgid, ...(start !== undefined && { start }) }),
    exitCode: () => (received ? CODES[received] : undefined),
    dispose() {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    },
  }
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}
