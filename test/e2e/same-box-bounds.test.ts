/**
 * What bounds the same-box A/B's base arm, through `node dist/index.js` (SPEC §14, §4): the base commit's fetch
 * from an origin that accepts the connection and never answers is ended with the run, even a SIGKILLed one (the
 * watchdog and the post step kill the `git` processes the run started), and `ab-budget` ends a base launch whose
 * engine never gets ready, rather than its `ready-timeout`.
 *
 * The workspace is a depth-1 checkout of the head commit (the base commit is missing, as after `actions/checkout`),
 * the event a pull request naming the base commit, and no stored baseline: every cell is `new`, which `ab: confirm`
 * A/B-tests.
 */
import type { ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import { git, makeOrigin, prEvent, shallowClone, worktreeList, type OriginFiles } from '../helpers/git-origin.js'
import { isGone, killGroupQuietly, psGroup } from '../server/procs.js'
import { profileJson } from '../sim/profile-file.js'

const PROFILE = profileJson('box', { prefill: { 'tokens-per-s': 20000 }, decode: { 'step-ms': 25 } })

/** A one-target matrix file: the simulator, or the engine lines given. */
function matrix(o: { defaults?: string; engine?: string; readyTimeout?: string } = {}): string {
  return [
    'version: 1',
    'hardware: box',
    `defaults: { rounds: 2, discard: 1, ready-timeout: ${o.readyTimeout ?? '20s'}, request-timeout: 30s, quality: false${o.defaults ?? ''} }`,
    'scenarios:',
    '  short: { input-tokens: 32, output-tokens: 8, concurrency: 1 }',
    'targets:',
    '  sim:',
    o.engine ?? '    engine: sim\n    profile: profiles/box.json\n    time-scale: 4',
    '',
  ].join('\n')
}

interface Workspace {
  checkout: string
  base: string
  runnerTemp: string
}

async function workspace(files: OriginFiles): Promise<Workspace> {
  const origin = makeOrigin('lbg-ab-bounds-', files)
  const runnerTemp = await mkdtemp(join(tmpdir(), 'lbg-runner-temp-'))
  return { checkout: shallowClone(origin), base: origin.base, runnerTemp }
}

const INPUTS = { config: 'bench.yml', 'results-dir': 'out' }

/** Non-zombie processes whose command line holds `needle`. */
function processesWith(needle: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)
      } catch {
        return false
      }
    })
    .map(Number)
    .filter((pid) => pid !== process.pid && !isGone(pid))
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await delay(20)) if (check()) return true
  return check()
}

/** A loopback "git server" that accepts every connection, reads the request and never answers. */
async function stallingOrigin(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = []
  const server = createServer((socket) => {
    sockets.push(socket)
    socket.on('data', () => undefined)
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as { port: number }).port, sockets }
}

const leftovers: (() => void)[] = []
afterEach(() => {
  for (const undo of leftovers.splice(0)) undo()
})

describe('bounds of the base arm', () => {
  it('SIGKILL during the base commit fetch from a stalled origin: no git process of ours after the post step', async () => {
    const ws = await workspace({
      base: { 'bench.yml': matrix(), 'profiles/box.json': PROFILE },
      head: { 'README.md': 'b\n' },
    })
    const origin = await stallingOrigin()
    leftovers.push(() => {
      for (const socket of origin.sockets) socket.destroy()
      origin.server.close()
    })
    const url = `http://127.0.0.1:${origin.port}/repo.git`
    git(ws.checkout, 'remote', 'set-url', 'origin', url)
    // Every git process of this fetch names the base commit (`git fetch … <sha>`) or the origin (`git remote-http`).
    const ours = () => [...new Set([...processesWith(ws.base), ...processesWith(url)])]
    leftovers.push(() => ours().forEach((pid) => killGroupQuietly(pid)))
    let killedAt = 0
    let atKill: number[] = []
    const env = { RUNNER_TEMP: ws.runnerTemp }
    const run = await runAction({
      cwd: ws.checkout,
      inputs: INPUTS,
      env,
      event: prEvent(ws.base),
      timeoutMs: 120_000,
      onSpawn: (child: ChildProcess) =>
        // The origin's first connection comes from git's HTTP helper: the fetch is under way.
        origin.server.once('connection', () => {
          atKill = ours()
          killedAt = Date.now()
          child.kill('SIGKILL')
        }),
    })
    expect(run.code, run.stdout).toBeNull()
    expect(run.stdout).toMatch(/the base commit [0-9a-f]{7} is not in the checkout: fetching it from origin/)
    expect(atKill.length, 'no git process was running at the SIGKILL').toBeGreaterThan(0)
    // The fetch's process group is among the tasks saved for the post step (its leader is `git fetch`).
    const saved = JSON.parse(run.state.cleanup ?? '[]') as { kind: string; pgid?: number }[]
    expect(
      saved.some((t) => t.kind === 'group' && atKill.includes(t.pgid!)),
      run.state.cleanup,
    ).toBe(true)
    // The watchdog acts the moment the pipe closes; the post step is the second net.
    const gone = until(() => ours().length === 0, 10_000).then((ok) => ({ ok, ms: Date.now() - killedAt }))
    const post = await runAction({ cwd: ws.checkout, inputs: INPUTS, env, state: { ...run.state, isPost: 'true' } })
    expect(post.code, post.stdout).toBe(0)
    const { ok, ms } = await gone
    expect(ok, `git processes left: ${ours().join(', ')}`).toBe(true)
    console.log(`SIGKILL of the main step → no git process of ours: ${ms} ms`)
    expect(readdirSync(ws.runnerTemp).filter((n) => n.startsWith('llm-bench-gate-base-'))).toEqual([])
    expect(worktreeList(ws.checkout)).toEqual([ws.checkout])
  }, 180_000)

  it('ab-budget: 15s ends a base launch that never gets ready at the budget, not at its 60 s ready-timeout', async () => {
    // An engine bump renamed a flag at the base: its server never opens the port.
    const never = '    engine: openai\n    model: m\n    launch: sleep 600'
    const ws = await workspace({
      base: { 'bench.yml': matrix({ engine: never, readyTimeout: '60s' }) },
      head: { 'bench.yml': matrix({ defaults: ', ab-budget: 15s' }), 'profiles/box.json': PROFILE },
    })
    const run = await runAction({
      cwd: ws.checkout,
      inputs: INPUTS,
      env: { RUNNER_TEMP: ws.runnerTemp },
      event: prEvent(ws.base),
      timeoutMs: 150_000,
    })
    const groups = [...run.stdout.matchAll(/launched process group (\d+)/g)].map((m) => Number(m[1]))
    leftovers.push(() => groups.forEach(killGroupQuietly))
    const results = JSON.parse(await readFile(join(ws.checkout, 'out', 'results.json'), 'utf8')) as ResultsFile
    const report = await readFile(join(ws.checkout, 'out', 'report.md'), 'utf8')
    const cell = results.cells[0]
    expect(cell.ab, run.stdout).toMatchObject({
      status: 'not-run',
      reason: 'ab-budget spent during the base launch 1',
    })
    // The stored-baseline verdict stands (there is none: the cell is new), and the report says why.
    expect(cell.verdict.status).toBe('new')
    expect(report).toMatch(/Same-box A\/B not run for 1 cell: ab-budget spent during the base launch 1/)
    const baseMs = cell.ab!.arms![0].engineMs
    console.log(`ab-budget 15s, base never ready: run ${run.elapsedMs} ms, base launch ${baseMs} ms`)
    // The launch ends at the budget (15 s, none spent before it), then its teardown: well within the 4.5 s SIGTERM grace.
    expect(baseMs).toBeGreaterThanOrEqual(14_000)
    expect(baseMs).toBeLessThan(20_000)
    expect(run.elapsedMs).toBeLessThan(60_000)
    expect(groups.length, run.stdout).toBe(2)
    expect(groups.flatMap(psGroup), 'a launched process is still running').toEqual([])
    expect(worktreeList(ws.checkout)).toEqual([ws.checkout])
  }, 180_000)
})
