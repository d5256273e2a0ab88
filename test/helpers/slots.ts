/**
 * The machine's test slots: MACHINE_SLOTS (test/projects.ts) files named `slot-<i>` in the system's temporary folder,
 * shared by every test run on the machine. Whatever in a suite keeps a core busy — a fast or slow test file, the
 * bundle `npm test` builds beside them — runs only while it holds one, so two `npm test` runs side by side load the
 * machine as much as one does (the load every wall-clock bound allows for, test/helpers/load.ts) and take turns.
 *
 * A slot is taken by creating its file exclusively (O_EXCL) with its owner's pid, the process's start time (field 22
 * of /proc/<pid>/stat, so a reused pid is not taken for the owner) and a token. A slot whose owner is gone — a worker
 * killed mid-file — is taken over; a waiter gives up after `waitMs`, naming the holders.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { readProcStat } from '../../src/io/proc-stat.js'
import { MACHINE_SLOTS } from '../projects.js'

/** `LLM_BENCH_TEST_SLOTS_DIR` moves them (the slots' own test uses a folder of its own). */
export const SLOTS_DIR = process.env.LLM_BENCH_TEST_SLOTS_DIR || join(tmpdir(), 'llm-bench-gate-test-slots')
const POLL_MS = 250
/** How long a waiter waits for a slot by default: a whole suite beside it may hold both. */
export const SLOT_WAIT_MS = 45 * 60_000

/** The kernel's start time of a process (clock ticks since boot), or undefined when it is gone. */
const startTime = (pid: number): string | undefined => readProcStat(pid)?.startTime.toString()

function holderAlive(content: string): boolean {
  const [pid, started] = content.split(' ')
  return startTime(Number(pid)) === started
}

/** Takes a free slot (or one whose owner is gone); undefined when all are held. */
function tryTake(dir: string, token: string): string | undefined {
  mkdirSync(dir, { recursive: true })
  const mine = `${process.pid} ${startTime(process.pid)} ${token}`
  for (let i = 0; i < MACHINE_SLOTS; i++) {
    const path = join(dir, `slot-${i}`)
    try {
      writeFileSync(path, mine, { flag: 'wx' })
      return path
    } catch {
      let held: string
      try {
        held = readFileSync(path, 'utf8')
      } catch {
        continue // released between the two calls: the next sweep takes it
      }
      if (!holderAlive(held)) {
        try {
          unlinkSync(path)
        } catch {
          // another waiter cleared it first
        }
      }
    }
  }
  return undefined
}

function holders(dir: string): string {
  const held: string[] = []
  for (let i = 0; i < MACHINE_SLOTS; i++) {
    try {
      held.push(`pid ${readFileSync(join(dir, `slot-${i}`), 'utf8').split(' ')[0]}`)
    } catch {
      // free
    }
  }
  return held.join(', ') || 'none'
}

export interface HeldSlot {
  /** Frees the slot unless another waiter took it over (its owner seemed gone). */
  release(): void
}

/** Waits for a slot, polling every POLL_MS; throws naming the holders after `waitMs`. */
export async function takeSlot(waitMs = SLOT_WAIT_MS, dir = SLOTS_DIR): Promise<HeldSlot> {
  const token = randomUUID()
  const deadline = Date.now() + waitMs
  for (;;) {
    const path = tryTake(dir, token)
    if (path)
      return {
        release() {
          try {
            if (readFileSync(path, 'utf8').endsWith(token)) unlinkSync(path)
          } catch {
            // already taken over
          }
        },
      }
    if (Date.now() > deadline)
      throw new Error(`no test slot free in ${dir} after ${waitMs / 60_000} min (held by ${holders(dir)})`)
    await sleep(POLL_MS)
  }
}
