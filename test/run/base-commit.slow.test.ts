/**
 * checkoutBase with real git: a shallow clone (as `actions/checkout` leaves it) fetches the base commit from
 * its origin over file:// and the worktree holds the base's files; a full clone fetches nothing; a remote that
 * refuses, a hung remote, a commit origin lacks and a malformed id each come back as one line saying which;
 * the worktree is registered with the guard before it exists, and it goes on remove(), or by the watchdog when
 * the process that made it is SIGKILLed. Fetching by commit id needs no `uploadpack.allow*SHA1InWant` here:
 * git's protocol v2 (the default since git 2.26) serves any reachable commit by id, as GitHub does.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'
import { checkoutBase, type BaseCheckout } from '../../src/run/base-commit.js'
import type { RunGuard } from '../../src/server/guard.js'
import type { CleanupTask } from '../../src/server/cleanup.js'
import { WORKTREE_MARKER, WORKTREE_PREFIX } from '../../src/server/worktree.js'
import { ROOT } from '../helpers/root.js'
import { fullClone, git, makeOrigin, shallowClone, worktreeList, type Origin } from '../helpers/git-origin.js'
import { memoryLogger } from '../helpers/memory-logger.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function fresh(): { origin: Origin; temp: string } {
  const origin = makeOrigin()
  const temp = mkdtempSync(join(tmpdir(), 'lbg-runner-temp-'))
  dirs.push(origin.dir, temp)
  return { origin, temp }
}

/**
 * A guard that records what it is told about the worktree and whether it existed at that moment (`events`), and
 * the process groups of the git commands, registered while each runs (`groups`).
 */
function recordingGuard() {
  const events: { what: 'register' | 'forget'; task: CleanupTask; marker: boolean; tree: boolean }[] = []
  const groups: { what: 'register' | 'forget'; pgid: number }[] = []
  const note = (what: 'register' | 'forget') => (task: CleanupTask) => {
    if (task.kind === 'group') return groups.push({ what, pgid: task.pgid })
    const path = task.kind === 'worktree' ? task.path : ''
    events.push({ what, task, marker: existsSync(join(path, WORKTREE_MARKER)), tree: existsSync(join(path, 'tree')) })
  }
  const guard: RunGuard = { runId: 'test', register: note('register'), forget: note('forget'), close: async () => {} }
  return { guard, events, groups }
}

/** A git:// remote on loopback that takes the connection and never answers, as origin of `repo`. */
async function withSilentRemote(
  repo: string,
  body: (remote: { sockets: Socket[]; connected: Promise<void>; allClosed: () => Promise<void> }) => Promise<void>,
) {
  const sockets: Socket[] = []
  const closed: Promise<void>[] = []
  let connect = () => {}
  const connected = new Promise<void>((r) => (connect = r))
  const server = createServer((socket) => {
    sockets.push(socket)
    closed.push(new Promise((r) => socket.once('close', () => r())))
    socket.on('error', () => undefined)
    // Read (and ignore) git's request, so that the end behind it is seen.
    socket.resume()
    connect()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  try {
    const { port } = server.address() as { port: number }
    git(repo, 'remote', 'set-url', 'origin', `git://127.0.0.1:${port}/repo.git`)
    await body({ sockets, connected, allClosed: () => Promise.all(closed).then(() => undefined) })
  } finally {
    sockets.forEach((s) => s.destroy())
    server.close()
  }
}

function expectCheckout(result: BaseCheckout | { unavailable: string }): BaseCheckout {
  if ('unavailable' in result) throw new Error(`unavailable: ${result.unavailable}`)
  return result
}

describe('checkoutBase', () => {
  it('fetches the base commit a shallow clone lacks, and the worktree holds the base’s files', async () => {
    const { origin, temp } = fresh()
    const repo = shallowClone(origin)
    expect(() => git(repo, 'cat-file', '-e', `${origin.base}^{commit}`)).toThrow()
    const { guard, events, groups } = recordingGuard()
    const log = memoryLogger()
    const checkout = expectCheckout(await checkoutBase({ repoRoot: repo, sha: origin.base, tempDir: temp, guard, log }))
    // Each git command (rev-parse, cat-file, fetch, cat-file, worktree add) was a group of ours while it ran.
    expect(groups).toHaveLength(10)
    for (let i = 0; i < groups.length; i += 2)
      expect([groups[i], groups[i + 1]]).toEqual([
        { what: 'register', pgid: groups[i].pgid },
        { what: 'forget', pgid: groups[i].pgid },
      ])
    expect(checkout).toMatchObject({ sha: origin.base, fetched: true })
    expect(log.lines.join('\n')).toContain(`the base commit ${origin.base.slice(0, 7)} is not in the checkout`)
    expect(readFileSync(join(checkout.root, 'bench.yml'), 'utf8')).toBe('base\n')
    expect(existsSync(join(checkout.root, 'added.txt'))).toBe(false)
    // The checkout itself is untouched: same commit, same files, nothing to commit.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(origin.head)
    expect(readFileSync(join(repo, 'bench.yml'), 'utf8')).toBe('head\n')
    expect(git(repo, 'status', '--porcelain')).toBe('')
    expect(worktreeList(repo)).toEqual([repo, checkout.root])
    const folder = join(checkout.root, '..')
    expect(folder.startsWith(join(temp, WORKTREE_PREFIX))).toBe(true)
    // Registered once the folder and its marker exist, before git added the worktree.
    expect(events).toEqual([
      { what: 'register', task: { kind: 'worktree', repo, path: folder }, marker: true, tree: false },
    ])

    await checkout.remove()
    await checkout.remove()
    expect(existsSync(folder)).toBe(false)
    expect(worktreeList(repo)).toEqual([repo])
    expect(events.map((e) => e.what)).toEqual(['register', 'forget', 'forget'])
  })

  it('fetches nothing when the checkout has the commit', async () => {
    const { origin, temp } = fresh()
    const repo = fullClone(origin)
    const log = memoryLogger()
    const checkout = expectCheckout(await checkoutBase({ repoRoot: repo, sha: origin.base, tempDir: temp, log }))
    expect(checkout.fetched).toBe(false)
    expect(log.lines.join('\n')).not.toContain('fetching')
    expect(readFileSync(join(checkout.root, 'bench.yml'), 'utf8')).toBe('base\n')
    await checkout.remove()
    expect(readdirSync(temp)).toEqual([])
  })

  it('says so when origin cannot be reached, and leaves no folder', async () => {
    const { origin, temp } = fresh()
    const repo = shallowClone(origin)
    const missing = join(origin.dir, 'no-such-origin.git')
    git(repo, 'remote', 'set-url', 'origin', `file://${missing}`)
    const result = await checkoutBase({ repoRoot: repo, sha: origin.base, tempDir: temp, log: memoryLogger() })
    expect(result).toEqual({
      unavailable: `fetching the base commit ${origin.base.slice(0, 7)} from origin failed: '${missing}' does not appear to be a git repository`,
    })
    expect(readdirSync(temp)).toEqual([])
  })

  it('says so when origin does not have the commit', async () => {
    const { origin, temp } = fresh()
    const repo = shallowClone(origin)
    const stranger = 'f'.repeat(40)
    const result = await checkoutBase({ repoRoot: repo, sha: stranger, tempDir: temp, log: memoryLogger() })
    // Over file:// both git's and upload-pack's own line reach the same stderr, in either order.
    expect('unavailable' in result && result.unavailable).toMatch(
      new RegExp(
        `^fetching the base commit fffffff from origin failed: (remote error: |git )upload-pack: not our ref ${stranger}$`,
      ),
    )
  })

  it('kills a fetch from a remote that never answers at the time limit', async () => {
    const { origin, temp } = fresh()
    const repo = shallowClone(origin)
    await withSilentRemote(repo, async (remote) => {
      const started = Date.now()
      const result = await checkoutBase({
        repoRoot: repo,
        sha: origin.base,
        tempDir: temp,
        log: memoryLogger(),
        fetchTimeoutMs: 1000,
      })
      expect(result).toEqual({
        unavailable: `fetching the base commit ${origin.base.slice(0, 7)} from origin failed: timed out after 1 s`,
      })
      // The limit, plus the time git takes to start and to be reaped on a busy machine.
      expect(Date.now() - started).toBeLessThan(1000 + 5000)
      // git held the connection until it was killed; its end closes it.
      expect(remote.sockets).toHaveLength(1)
      await remote.allClosed()
    })
  })

  it('stops a fetch when the run is cancelled, and leaves no folder', async () => {
    const { origin, temp } = fresh()
    const repo = shallowClone(origin)
    await withSilentRemote(repo, async (remote) => {
      const cancel = new AbortController()
      const pending = checkoutBase({
        repoRoot: repo,
        sha: origin.base,
        tempDir: temp,
        log: memoryLogger(),
        signal: cancel.signal,
      })
      await remote.connected
      cancel.abort()
      expect(await pending).toEqual({ unavailable: 'the run was cancelled before the base commit was checked out' })
      await remote.allClosed()
      expect(readdirSync(temp)).toEqual([])
    })
  })

  it.each([
    ['abc1234', 'abc1234'],
    ['--upload-pack=touch /tmp/x', '--upload-pack=touch /tmp/x'],
    ['g'.repeat(40), 'g'.repeat(40)],
    ['', ''],
  ])('refuses %j as a commit id before git sees it', async (sha, shown) => {
    const { origin, temp } = fresh()
    const result = await checkoutBase({ repoRoot: fullClone(origin), sha, tempDir: temp, log: memoryLogger() })
    expect(result).toEqual({
      unavailable: `the base commit "${shown}" is not a commit id (40 or 64 hexadecimal digits)`,
    })
  })

  it('says so when the folder is not a git checkout', async () => {
    const { origin, temp } = fresh()
    const result = await checkoutBase({ repoRoot: temp, sha: origin.base, tempDir: temp, log: memoryLogger() })
    expect('unavailable' in result && result.unavailable).toMatch(/is not a git checkout \(not a git repository/)
  })

  it('removes the worktree when git fails to add it, and takes the task back', async () => {
    const { origin, temp } = fresh()
    const repo = fullClone(origin)
    // A post-checkout hook's failure is `git worktree add`'s failure (githooks(5)), after the files are written.
    const hook = join(repo, '.git', 'hooks', 'post-checkout')
    git(repo, 'config', 'core.hooksPath', join(repo, '.git', 'hooks'))
    writeFileSync(hook, '#!/bin/sh\necho "hook says no" >&2\nexit 3\n', { mode: 0o755 })
    const { guard, events } = recordingGuard()
    const result = await checkoutBase({ repoRoot: repo, sha: origin.base, tempDir: temp, guard, log: memoryLogger() })
    expect(result).toEqual({
      unavailable: `checking out the base commit ${origin.base.slice(0, 7)} into a worktree failed: hook says no`,
    })
    expect(readdirSync(temp)).toEqual([])
    expect(worktreeList(repo)).toEqual([repo])
    expect(events.map((e) => e.what)).toEqual(['register', 'forget'])
  })
})

describe('a main process SIGKILLed with a base worktree out', () => {
  it('the watchdog removes it, and git no longer lists it', async () => {
    const { origin, temp } = fresh()
    const repo = shallowClone(origin)
    const child = spawn(
      process.execPath,
      [join(ROOT, 'test/helpers/base-checkout-child.ts'), repo, origin.base, temp, join(ROOT, 'src/watchdog.ts')],
      { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '--import tsx' }, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    const exited = new Promise((r) => child.once('exit', r))
    try {
      const [line] = await Promise.race([
        createInterface({ input: child.stdout })
          [Symbol.asyncIterator]()
          .next()
          .then((r) => [r.value as string]),
        exited.then(() => ['']),
      ])
      const checkout = JSON.parse(line) as { root: string; fetched: boolean }
      expect(checkout.fetched).toBe(true)
      expect(readFileSync(join(checkout.root, 'bench.yml'), 'utf8')).toBe('base\n')
      child.kill('SIGKILL')
      await exited
      const folder = join(checkout.root, '..')
      // The watchdog already runs (started at the registration); its cleanup is three short git commands.
      const deadline = Date.now() + 10_000
      while (existsSync(folder) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(existsSync(folder)).toBe(false)
      // The prune is the watchdog's last step, just after the folder went.
      while (worktreeList(repo).length > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(worktreeList(repo)).toEqual([repo])
    } finally {
      child.kill('SIGKILL')
    }
  })
})
