import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import {
  groupAlive,
  killProcessGroups,
  liveMembers,
  ownProcessGroup,
  terminateGroup,
} from '../../src/server/process-group.js'
import { isGone, killGroupQuietly, psGroup } from './procs.js'

const groups: number[] = []
afterEach(() => groups.splice(0).forEach(killGroupQuietly))

/** A detached `bash -c` (its own group); waits until `members` processes (bash included) run. */
async function group(script: string, members: number): Promise<number> {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' })
  child.unref()
  const pgid = child.pid!
  groups.push(pgid)
  const deadline = Date.now() + 5000
  while (liveMembers(pgid).length < members && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  expect(liveMembers(pgid)).toHaveLength(members)
  return pgid
}

async function deadGroup(): Promise<number> {
  const child = spawn('bash', ['-c', 'exit 0'], { detached: true, stdio: 'ignore' })
  await new Promise((r) => child.once('exit', r))
  return child.pid!
}

describe('terminateGroup', () => {
  it('SIGTERM ends a well-behaved group, grandchildren included', async () => {
    const pgid = await group('sleep 3000 & sleep 3000', 3)
    const members = liveMembers(pgid)
    expect(await terminateGroup(pgid, 2000)).toBe('terminated')
    expect(members.every(isGone)).toBe(true)
    expect(psGroup(pgid)).toEqual([])
  })

  it('falls back to SIGKILL after the grace period when the group ignores SIGTERM', async () => {
    const pgid = await group("trap '' TERM; sleep 3000 & sleep 3000", 3)
    const t0 = Date.now()
    expect(await terminateGroup(pgid, 400)).toBe('killed')
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400)
    expect(groupAlive(pgid)).toBe(false)
  })

  it('says gone for a group that already ended', async () => {
    expect(await terminateGroup(await deadGroup(), 400)).toBe('gone')
  })
})

describe('killProcessGroups', () => {
  it('kills the saved groups still alive (SIGKILL for a stubborn one) and returns them', async () => {
    const polite = await group('sleep 3000 & sleep 3000', 3)
    const stubborn = await group("trap '' TERM; sleep 3000 & sleep 3000", 3)
    const dead = await deadGroup()
    const members = [...liveMembers(polite), ...liveMembers(stubborn)]
    const t0 = Date.now()
    const killed = await killProcessGroups([polite, stubborn, dead, polite], 500)
    expect(killed.sort()).toEqual([polite, stubborn].sort())
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500)
    expect(members.every(isGone)).toBe(true)
  })

  it('never signals ids that cannot be a launched group: <= 1, non-integers, its own group', async () => {
    const own = ownProcessGroup()
    expect(own).toBeGreaterThan(1)
    expect(await killProcessGroups([0, 1, -1, 2.5, own!, process.pid], 100)).toEqual([])
  })

  it('returns nothing when every group is gone', async () => {
    expect(await killProcessGroups([await deadGroup()], 100)).toEqual([])
  })
})
