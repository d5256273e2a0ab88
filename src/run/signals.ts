/**
 * SIGINT (Ctrl-C) and SIGTERM during a run, the action's or the CLI's. The first signal aborts the
 * run, whose teardown stops every launched engine's process group (SIGTERM, then SIGKILL after the
 * grace: llama-server ignores one SIGTERM while a stream is in flight) and writes the results it
 * has. A second signal does not wait for that: every group launched so far gets SIGKILL at once
 * (the Actions runner cancels a job with SIGINT, then SIGTERM 7.5 s later). The exit code is the
 * shell's for a signal, 128 + its number (130 for SIGINT, 143 for SIGTERM).
 */
import type { Logger } from '../core/log.js'

const CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 }

export interface SignalCancel {
  signal: AbortSignal
  /** Remember a launched process group, for the second signal. */
  onSpawn(pgid: number): void
  /** 130 or 143 once a signal came, else undefined. */
  exitCode(): number | undefined
  /** Removes the handlers. */
  dispose(): void
}

export function cancelOnSignals(log: Logger, kill: (pgid: number) => void = killGroup): SignalCancel {
  const abort = new AbortController()
  const pgids: number[] = []
  let received: NodeJS.Signals | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) {
      log.warn(`received ${signal} again: killing ${pgids.length} launched process group(s) with SIGKILL`)
      pgids.forEach(kill)
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
    onSpawn: (pgid) => void pgids.push(pgid),
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
