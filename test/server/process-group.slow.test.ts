import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import {
  groupAlive,
  killProcessGroups,
  liveMembers,
  ownProcessGroup,
  terminateGroup,
} from '../../src/server/process-group.js'
import { checkGroup, type GroupIdentity } from '../../src/server/group-identity.js'
import { isGone, killGroupQuietly, psGroup, startTime } from './procs.js'

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

/** A group as the guard records it: the leader's pid and start time. */
const identity = (pgid: number): GroupIdentity => ({ pgid, start: startTime(pgid) })

/** A group recorded at spawn, as the run records it, that has ended since (its leader reaped). */
async function deadGroup(): Promise<GroupIdentity> {
  const child = spawn('bash', ['-c', 'exit 0'], { detached: true, stdio: 'ignore' })
  const recorded = identity(child.pid!)
  await new Promise((r) => child.once('exit', r))
  return recorded
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
    expect(await terminateGroup((await deadGroup()).pgid, 400)).toBe('gone')
  })
})

describe('killProcessGroups', () => {
  it('kills the saved groups still alive (SIGKILL for a stubborn one) and returns them', async () => {
    const polite = await group('sleep 3000 & sleep 3000', 3)
    const stubborn = await group("trap '' TERM; sleep 3000 & sleep 3000", 3)
    const dead = await deadGroup()
    const members = [...liveMembers(polite), ...liveMembers(stubborn)]
    const t0 = Date.now()
    const killed = await killProcessGroups([identity(polite), identity(stubborn), dead, identity(polite)], 500)
    expect(killed.sort()).toEqual([polite, stubborn].sort())
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500)
    expect(members.every(isGone)).toBe(true)
  })

  it('never signals ids that cannot be a launched group: <= 1, non-integers, its own group', async () => {
    const own = ownProcessGroup()
    expect(own).toBeGreaterThan(1)
    expect(await killProcessGroups([0, 1, -1, 2.5, own!, process.pid].map(identity), 100)).toEqual([])
  })

  it('returns nothing when every group is gone', async () => {
    expect(await killProcessGroups([await deadGroup()], 100)).toEqual([])
  })
})

/**
 * The identity rule (src/server/group-identity.ts): a saved group is signalled only while its leader is the
 * process that was recorded, pid and start time. A reused pid looks, from the saved state, exactly like a
 * live process holding the recorded pid with another start time.
 */
describe('checkGroup and the saved groups it lets through', () => {
  it('the recorded leader, running: ours', async () => {
    const pgid = await group('sleep 3000', 1)
    expect(checkGroup(identity(pgid))).toBe('ours')
  })

  it('another start time on the same pid (a reused pid): not ours, and never signalled', async () => {
    const bystander = await group('sleep 3000 & sleep 3000', 3)
    const reused = { pgid: bystander, start: startTime(bystander)! - 1 }
    expect(checkGroup(reused)).toBe('reused')
    const passed: string[] = []
    expect(await killProcessGroups([reused], 100, (pgid, why) => passed.push(`${pgid} ${why}`))).toEqual([])
    expect(passed).toEqual([`${bystander} reused`])
    expect(liveMembers(bystander)).toHaveLength(3)
  })

  it('a group that ended: gone', async () => {
    expect(checkGroup(await deadGroup())).toBe('gone')
  })

  it('members left after their leader was reaped: leaderless, not signalled (ours or a reused id, /proc cannot tell)', async () => {
    const child = spawn('bash', ['-c', 'sleep 3000 & exit 0'], { detached: true, stdio: 'ignore' })
    const recorded = identity(child.pid!)
    groups.push(recorded.pgid)
    await new Promise((r) => child.once('exit', r))
    expect(liveMembers(recorded.pgid)).toHaveLength(1)
    expect(checkGroup(recorded)).toBe('leaderless')
    expect(await killProcessGroups([recorded], 100)).toEqual([])
    expect(liveMembers(recorded.pgid)).toHaveLength(1)
  })

  it('a live group saved without a start time: unrecorded, not signalled', async () => {
    const pgid = await group('sleep 3000', 1)
    expect(checkGroup({ pgid })).toBe('unrecorded')
    expect(await killProcessGroups([{ pgid }], 100)).toEqual([])
    expect(liveMembers(pgid)).toHaveLength(1)
  })
})
