/**
 * PID reuse, through the bundle: the post step (`node dist/index.js` with the saved state) and the watchdog
 * (`node dist/watchdog/index.js` with the tasks on its stdin) signal a saved process group only while its
 * leader is the process the run started, pid and start time. A group recorded at spawn, as the run records
 * it, exits; an unrelated "bystander" then runs in a session of its own, and the saved state names the
 * bystander's pid with the old start time — what a reuse of the pid looks like from the saved state. The
 * bystander must live. A leftover group of ours (same start time) must still be killed, and a group the
 * main step's teardown saw gone must not be in the saved state at all.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { CleanupTask } from '../../src/server/cleanup.js'
import { ROOT, runAction } from '../helpers/action.js'
import { isGone, killGroupQuietly, psGroup, startTime } from '../server/procs.js'

const WATCHDOG = join(ROOT, 'dist/watchdog/index.js')
const FAKE = join(ROOT, 'test/helpers/fake-engine.mjs')
const groups: number[] = []
afterEach(() => groups.splice(0).forEach(killGroupQuietly))

/** A detached `bash -c` (a group and session of its own), recorded at spawn as the run records its groups. */
function launch(script: string): { child: ChildProcess; task: CleanupTask } {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' })
  groups.push(child.pid!)
  return { child, task: { kind: 'group', pgid: child.pid!, start: startTime(child.pid!) } }
}

/** A group of the run that has ended, its leader reaped: its pid is free for anyone. */
async function endedGroup(): Promise<CleanupTask & { kind: 'group' }> {
  const { child, task } = launch('exit 0')
  await new Promise((r) => child.once('exit', r))
  return task as CleanupTask & { kind: 'group' }
}

/** An unrelated process leading a group of its own; returns once all `members` run. */
async function running(script: string, members: number): Promise<CleanupTask & { kind: 'group' }> {
  const { task } = launch(script)
  const { pgid } = task as { pgid: number }
  const deadline = Date.now() + 5000
  while (psGroup(pgid).length < members && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  expect(psGroup(pgid)).toHaveLength(members)
  return task as CleanupTask & { kind: 'group' }
}

/** The saved state pointing at the bystander's pid with the start time of the group that ended. */
async function reusedPid() {
  const ended = await endedGroup()
  // Start times count clock ticks (10 ms at USER_HZ 100): a real reuse comes a whole round of the pid counter
  // later, the bystander here a few ticks.
  await new Promise((r) => setTimeout(r, 50))
  const bystander = await running('sleep 3000 & sleep 3000', 3)
  expect(bystander.start).not.toBe(ended.start)
  return { bystander, stale: { ...ended, pgid: bystander.pgid } }
}

function postStep(tasks: CleanupTask[]) {
  const pgids = tasks.flatMap((t) => (t.kind === 'group' ? [t.pgid] : []))
  return runAction({
    inputs: {},
    state: { isPost: 'true', cleanup: JSON.stringify(tasks), pgids: JSON.stringify(pgids) },
    timeoutMs: 30_000,
  })
}

/** The watchdog as the main process leaves it when it dies: the lines written, then the pipe closed. */
async function watchdog(lines: unknown[]): Promise<number | null> {
  const child = spawn(process.execPath, [WATCHDOG], { stdio: ['pipe', 'ignore', 'inherit'] })
  child.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  const code = await new Promise<number | null>((r) => child.once('exit', r))
  clearTimeout(timer)
  return code
}

describe('a saved group whose pid now belongs to someone else', () => {
  it('the post step leaves the bystander alone and says why in a debug line', async () => {
    const { bystander, stale } = await reusedPid()
    const post = await postStep([stale])
    expect(post.code, post.stdout).toBe(0)
    expect(psGroup(bystander.pgid), post.stdout).toHaveLength(3)
    expect(post.stdout).toContain(`::debug::post: process group ${bystander.pgid} is not ours`)
    expect(post.stdout).toMatch(/post: 1 launched process group\(s\), none left alive/)
  })

  it('the watchdog leaves the bystander alone', async () => {
    const { bystander, stale } = await reusedPid()
    expect(await watchdog([{ task: stale }])).toBe(0)
    expect(psGroup(bystander.pgid)).toHaveLength(3)
  })
})

describe('a leftover group of ours (same pid, same start time)', () => {
  it('the post step still kills it, grandchildren included', async () => {
    const ours = await running('sleep 3000 & sleep 3000', 3)
    const members = psGroup(ours.pgid)
    const post = await postStep([ours])
    expect(post.code, post.stdout).toBe(0)
    expect(post.stdout).toContain(`post: killed process groups left alive by the main step: ${ours.pgid}`)
    expect(members.every(isGone)).toBe(true)
  })

  it('the watchdog still kills it; one the teardown forgot (a "forget" line) it leaves alone', async () => {
    const ours = await running('sleep 3000 & sleep 3000', 3)
    const forgotten = await running('sleep 3000', 1)
    const members = psGroup(ours.pgid)
    expect(await watchdog([{ task: ours }, { task: forgotten }, { forget: forgotten }])).toBe(0)
    expect(members.every(isGone)).toBe(true)
    expect(psGroup(forgotten.pgid)).toHaveLength(1)
  })
})

/** Runs the main step on `targets`; returns the groups it launched and the group tasks it left saved. */
async function mainStep(scenario: string, targets: string[]) {
  const cwd = await mkdtemp(join(tmpdir(), 'lbg-pid-reuse-'))
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'defaults: { rounds: 2, discard: 0, confirm: 0, ready-timeout: 20s, request-timeout: 20s, quality: false }',
      `scenarios: { s: ${scenario} }`,
      'targets:',
      ...targets,
      '',
    ].join('\n'),
  )
  const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' }, timeoutMs: 60_000 })
  const launched = JSON.parse(run.state.pgids ?? '[]') as number[]
  groups.push(...launched)
  expect(run.code, run.stdout).toBe(0)
  const saved = JSON.parse(run.state.cleanup) as CleanupTask[]
  return { launched, saved: saved.filter((t) => t.kind === 'group') }
}

describe('the main step forgets each group its teardown saw gone: the saved state names none for the post step', () => {
  it('a launched engine', async () => {
    const launch = JSON.stringify(`node ${FAKE} --dialect vllm --port {port}`)
    const { launched, saved } = await mainStep('{ input-tokens: 16, output-tokens: 8, concurrency: 1, requests: 2 }', [
      `  t: { engine: vllm, launch: ${launch} }`,
    ])
    expect(launched).toHaveLength(1)
    expect(saved).toEqual([])
  })

  it('the rounds of an external target', async () => {
    // The fixture's workload: 64 requests of 512 → 128 tokens at concurrency 8.
    const run = JSON.stringify(`cp '${join(ROOT, 'fixtures/ingest/vllm-save-result.json')}' {out}`)
    const { launched, saved } = await mainStep(
      '{ input-tokens: 512, output-tokens: 128, concurrency: 8, requests: 64 }',
      [`  ext: { engine: external, url: "http://127.0.0.1:9", format: vllm, run: ${run} }`],
    )
    expect(launched).toHaveLength(2)
    expect(saved).toEqual([])
  })
})
