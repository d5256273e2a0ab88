import { spawn, type ChildProcess } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { cancelOnSignals } from '../../src/run/signals.js'
import { readProcStat } from '../../src/io/proc-stat.js'
import { memoryLogger } from '../helpers/memory-logger.js'

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

/** A `sleep` leading a process group of its own, and its start time. */
async function group(): Promise<{ pid: number; start: number }> {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
  children.push(child)
  await new Promise((done) => child.once('spawn', done))
  const start = readProcStat(child.pid!)?.startTime
  if (start === undefined) throw new Error('this test needs /proc')
  return { pid: child.pid!, start }
}

describe('cancelOnSignals', () => {
  it('the second signal SIGKILLs the groups still ours, never one whose id another process now leads', async () => {
    const killed: number[] = []
    const log = memoryLogger()
    const cancel = cancelOnSignals(log, (pgid) => killed.push(pgid))
    try {
      const ours = await group()
      const stranger = await group()
      cancel.onSpawn(ours.pid, ours.start)
      // What a reused id looks like from here: the recorded start time is not its leader's.
      cancel.onSpawn(stranger.pid, stranger.start - 1)
      process.emit('SIGINT', 'SIGINT')
      expect(cancel.signal.aborted).toBe(true)
      expect(killed).toEqual([])
      process.emit('SIGTERM', 'SIGTERM')
      expect(killed).toEqual([ours.pid])
      expect(cancel.exitCode()).toBe(130)
    } finally {
      cancel.dispose()
    }
  })
})
