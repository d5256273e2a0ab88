/**
 * Setup file of the slow project (vitest.config.ts): a slow test file runs only while it holds one of MACHINE_SLOTS
 * slots shared by every test run on the machine, so two `npm test` runs side by side run at most that many timed files
 * at once between them — the load each file's wall-clock bounds already allow for (test/helpers/load.ts), rather than
 * twice it. One suite alone never waits: its slow project runs MACHINE_SLOTS files at once.
 *
 * A slot is a file created exclusively (O_EXCL) in the system's temporary folder, holding its owner's pid, the
 * process's start time (field 22 of /proc/<pid>/stat, so a reused pid is not taken for the owner) and a token. A
 * slot whose owner is gone — a worker killed mid-file — is taken over; a file waits at most WAIT_MS, then fails
 * naming the holders.
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll } from 'vitest'
import { MACHINE_SLOTS } from '../projects.js'
const DIR = join(tmpdir(), 'llm-bench-gate-test-slots')
const WAIT_MS = 45 * 60_000
const POLL_MS = 250

/** The kernel's start time of a process (clock ticks since boot), or undefined when it is gone. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

function holderAlive(content: string): boolean {
  const [pid, started] = content.split(' ')
  return startTime(Number(pid)) === started
}

/** Takes a free slot (or one whose owner is gone); undefined when all are held. */
function tryTake(token: string): string | undefined {
  mkdirSync(DIR, { recursive: true })
  const mine = `${process.pid} ${startTime(process.pid)} ${token}`
  for (let i = 0; i < MACHINE_SLOTS; i++) {
    const path = join(DIR, `slot-${i}`)
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

function holders(): string {
  const held: string[] = []
  for (let i = 0; i < MACHINE_SLOTS; i++) {
    try {
      held.push(`pid ${readFileSync(join(DIR, `slot-${i}`), 'utf8').split(' ')[0]}`)
    } catch {
      // free
    }
  }
  return held.join(', ') || 'none'
}

let held: { path: string; token: string } | undefined

beforeAll(async () => {
  const token = randomUUID()
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const path = tryTake(token)
    if (path) {
      held = { path, token }
      return
    }
    if (Date.now() > deadline)
      throw new Error(`no test slot free in ${DIR} after ${WAIT_MS / 60_000} min (held by ${holders()})`)
    await sleep(POLL_MS)
  }
}, WAIT_MS + 60_000)

afterAll(() => {
  if (!held) return
  try {
    if (readFileSync(held.path, 'utf8').endsWith(held.token)) unlinkSync(held.path)
  } catch {
    // already taken over
  }
  held = undefined
})
