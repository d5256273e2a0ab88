/**
 * The watchdog process (see guard.ts): reads cleanup tasks, one JSON line each, from its stdin —
 * a pipe from the main process — until it closes. A `{"done":true}` line first means the main
 * process ended normally and cleaned up itself: exit. Otherwise it died: run the cleanup, exit. A
 * `{"forget":task}` line takes a task back (a process group its teardown saw gone); the groups left
 * are signalled only while their leader is still the process the run started (group-identity.ts).
 */
import { runCleanup, type CleanupTask } from './cleanup.js'

/** SIGTERM → SIGKILL grace for the groups left behind: short, since their owner is already gone. */
const GRACE_MS = 1000

export function runWatchdog(input: NodeJS.ReadableStream = process.stdin): Promise<void> {
  // Detached in a session of its own; still, a signal meant for the job must not stop the cleanup.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined)
  const tasks: CleanupTask[] = []
  let done = false
  let buffered = ''
  input.setEncoding('utf8')
  input.on('data', (chunk: string) => {
    buffered += chunk
    let newline: number
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      try {
        const message = JSON.parse(line) as { task?: CleanupTask; forget?: CleanupTask; done?: boolean }
        if (message.task) tasks.push(message.task)
        // A teardown saw it gone (guard.ts): its id may be someone else's by the time this runs.
        if (message.forget) {
          const at = tasks.findIndex((t) => JSON.stringify(t) === JSON.stringify(message.forget))
          if (at >= 0) tasks.splice(at, 1)
        }
        if (message.done) done = true
      } catch {
        // Only the main process writes here; a torn last line is what its death left.
      }
    }
  })
  return new Promise((resolve) => {
    input.once('close', () => {
      if (done || tasks.length === 0) return resolve()
      void runCleanup(tasks, GRACE_MS).finally(resolve)
    })
  })
}
