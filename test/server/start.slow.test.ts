/**
 * The launcher end to end against fake-engine child processes: readiness per dialect,
 * early exit, timeout, teardown of every process of the group, external targets.
 */
import net from 'node:net'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { httpPorts } from '../../src/engines/http.js'
import { engineByName } from '../../src/engines/registry.js'
import type { HttpPorts } from '../../src/engines/types.js'
import { StartError } from '../../src/core/errors.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { startTarget, type RunningTarget, type StartOptions } from '../../src/server/index.js'
import { groupAlive } from '../../src/server/process-group.js'
import { portAnswers } from '../../src/server/ports.js'
import { logPathFor } from '../../src/server/start.js'
import { fakeLaunch, runFake, type Dialect, type FakeEngine } from '../engines/fake.js'
import { isGone, killGroupQuietly, psGroup, startTime } from './procs.js'
import { createRunGuard } from '../../src/server/guard.js'
import type { CleanupTask } from '../../src/server/cleanup.js'
import { targetPlan } from './target.js'

const pgids: number[] = []
const running: RunningTarget[] = []
const fakes: FakeEngine[] = []
const dirs: string[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()))
  await Promise.all(fakes.splice(0).map((f) => f.stop()))
  pgids.splice(0).forEach(killGroupQuietly)
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }))
})

const http = httpPorts()

/** Streams one token, as the bench client's smoke request does. */
async function smoke(baseUrl: string): Promise<void> {
  const answer = await http.post(
    `${baseUrl}/v1/completions`,
    { model: 'fake-model', prompt: 'hi', max_tokens: 1, stream: true },
    5000,
  )
  if (answer.status !== 200 || !answer.body.includes('[DONE]')) throw new Error(`smoke: HTTP ${answer.status}`)
}

function options(
  launch: string | undefined,
  more: Partial<StartOptions> & { engine?: string; readyTimeoutMs?: number; id?: string } = {},
) {
  const { engine = 'vllm', readyTimeoutMs, id, ...rest } = more
  const logDir = mkdtempSync(join(tmpdir(), 'start-'))
  dirs.push(logDir)
  const log = memoryLogger()
  const spawned: number[] = []
  const opts: StartOptions = {
    target: targetPlan({ engine, launch, readyTimeoutMs, ...(id ? { id } : {}) }),
    adapter: engineByName(engine),
    logDir,
    log,
    smoke,
    onSpawn: (pgid) => {
      spawned.push(pgid)
      pgids.push(pgid)
    },
    ...rest,
  }
  return { opts, log, spawned }
}

async function start(opts: StartOptions): Promise<RunningTarget> {
  const r = await startTarget(opts)
  running.push(r)
  return r
}

async function startError(opts: StartOptions): Promise<StartError> {
  const error = await startTarget(opts).then(
    (r) => {
      running.push(r)
      throw new Error('started, expected a StartError')
    },
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(StartError)
  return error as StartError
}

/** Records every probe answer's status, collapsing repeats. */
function recording(): HttpPorts & { statuses: number[] } {
  const inner = httpPorts()
  const statuses: number[] = []
  return {
    statuses,
    post: inner.post,
    async get(url, timeoutMs) {
      const answer = await inner.get(url, timeoutMs)
      if (statuses.at(-1) !== answer.status) statuses.push(answer.status)
      return answer
    },
  }
}

describe('readiness per dialect', () => {
  it.each<[Dialect, number[], string]>([
    // vLLM does not listen while loading: refused, then 200.
    ['vllm', [0, 200], '--port {port}'],
    // The others listen at once and answer 503 while loading (a refusal may precede while node starts).
    ['sglang', [503, 200], '--port {port}'],
    ['llamacpp', [503, 200], '--port {port}'],
    ['openai', [503, 200], '--port "$PORT"'],
  ])('%s: waits through %o, smoke-tests, and stop() frees the port', async (dialect, sequence, portArg) => {
    const probe = recording()
    const launch = fakeLaunch(dialect, '--load-ms 700').replace('--port {port}', portArg)
    const smokeSpy = vi.fn(smoke)
    const { opts, spawned } = options(launch, { engine: dialect, http: probe, smoke: smokeSpy })
    const t0 = Date.now()
    const r = await start(opts)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(700)
    expect(dialect === 'vllm' ? probe.statuses : probe.statuses.filter((s, i) => !(s === 0 && i === 0))).toEqual(
      sequence,
    )
    expect(smokeSpy).toHaveBeenCalledExactlyOnceWith(r.baseUrl)
    expect(r.baseUrl).toBe(`http://127.0.0.1:${r.port}`)
    expect(spawned).toEqual([r.pgid])
    expect(r.launch).toContain(`--port`)
    expect(r.launch).not.toContain('{port}')
    expect(readFileSync(r.logPath!, 'utf8')).toContain(`$ ${r.launch}`)
    expect(r.logTail()).toContain(`fake-engine: ready on 127.0.0.1:${r.port}`)

    const exitedAfterStop = Promise.race([
      r.exited.then(() => 'exited'),
      new Promise((res) => setTimeout(() => res('pending'), 300)),
    ])
    await r.stop()
    expect(await portAnswers('127.0.0.1', r.port)).toBe(false)
    expect(groupAlive(r.pgid!)).toBe(false)
    expect(await exitedAfterStop).toBe('pending')
    await r.stop() // idempotent
  })
})

describe('start failures', () => {
  it('a launch that exits with code 3 → StartError exit, code 3, printed line in the tail', async () => {
    const { opts } = options(
      `echo "starting engine"; echo "fatal: CUDA error: no kernel image is available" >&2; exit 3`,
    )
    const error = await startError(opts)
    expect(error.kind).toBe('exit')
    expect(error.exitCode).toBe(3)
    expect(error.logTail).toContain('fatal: CUDA error: no kernel image is available')
    expect(error.message).toMatch(
      /^fake-target: launch exited with code 3 before the engine was ready; last log line: fatal: CUDA error/,
    )
  })

  it('an engine that crashes while loading → its exit code and last words', async () => {
    const { opts, spawned } = options(fakeLaunch('sglang', '--never-ready --exit-after-ms 400 --exit-code 7'), {
      engine: 'sglang',
    })
    const error = await startError(opts)
    expect(error).toMatchObject({ kind: 'exit', exitCode: 7 })
    expect(error.logTail).toContain('fake-engine: fatal: simulated crash, exiting with code 7')
    expect(groupAlive(spawned[0])).toBe(false)
  })

  it('never ready within a 4 s ready-timeout → StartError timeout with the tail; progress lines while waiting', async () => {
    const { opts, log, spawned } = options(fakeLaunch('sglang', '--never-ready'), {
      engine: 'sglang',
      readyTimeoutMs: 4000,
      progressIntervalMs: 1000,
    })
    const t0 = Date.now()
    const error = await startError(opts)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4000)
    expect(error.kind).toBe('timeout')
    expect(error.message).toContain('not ready after 4s (GET /health: HTTP 503)')
    expect(error.logTail).toContain('fake-engine: listening on')
    expect(groupAlive(spawned[0])).toBe(false)
    const progress = log.lines.filter((l) => l.includes('waiting for sglang to be ready'))
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress.length).toBeLessThanOrEqual(4)
    expect(progress[0]).toMatch(/\(1(\.\d)?s of 4s, GET \/health: HTTP 503\); last log line: fake-engine: listening on/)
  })

  it('vLLM answering 503 while loading (behind a proxy) becomes ready, not dead', async () => {
    const statuses: number[] = []
    const recording: HttpPorts = {
      ...http,
      get: async (url, ms) => http.get(url, ms).then((a) => (statuses.push(a.status), a)),
    }
    const { opts, spawned } = options(fakeLaunch('vllm', '--loading-503 --load-ms 1500'), {
      readyTimeoutMs: 20_000,
      http: recording,
    })
    const r = await start(opts)
    // Several 503s (1.5 s of loading at a 200 ms poll), then the 200 that made it ready.
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(3)
    expect(statuses.at(-1)).toBe(200)
    expect(groupAlive(spawned[0])).toBe(true)
    await r.stop()
    expect(groupAlive(spawned[0])).toBe(false)
  })

  it('aborting while loading → StartError aborted, group killed', async () => {
    const abort = new AbortController()
    const { opts, spawned } = options(fakeLaunch('vllm', '--never-ready'), { signal: abort.signal })
    setTimeout(() => abort.abort(), 500)
    const error = await startError(opts)
    expect(error.kind).toBe('aborted')
    expect(groupAlive(spawned[0])).toBe(false)
  })

  it('a failing smoke request → StartError smoke after retries, group killed', async () => {
    const failing = vi.fn(async () => {
      throw new Error('HTTP 404: model not found')
    })
    const { opts, spawned } = options(fakeLaunch('llamacpp'), { engine: 'llamacpp', smoke: failing })
    const error = await startError(opts)
    expect(error.kind).toBe('smoke')
    expect(error.message).toContain('smoke request failed after 3 attempts: HTTP 404: model not found')
    expect(failing).toHaveBeenCalledTimes(3)
    expect(groupAlive(spawned[0])).toBe(false)
  })

  it('refuses to launch on a port something already answers on', async () => {
    const server = net.createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const port = (server.address() as net.AddressInfo).port
      const { opts, spawned } = options(fakeLaunch('vllm'))
      opts.target.port = port
      const error = await startError(opts)
      expect(error.kind).toBe('spawn')
      expect(error.message).toContain(`port ${port} is already in use`)
      expect(spawned).toEqual([])
    } finally {
      await new Promise((r) => server.close(r))
    }
  })
})

describe('teardown', () => {
  it('kills grandchildren a launch script forks: no process of the group survives stop()', async () => {
    const launch = `sleep 3000 & echo "script grandchild pid $!"; ${fakeLaunch('llamacpp', '--fork-grandchild')}`
    const { opts } = options(launch, { engine: 'llamacpp' })
    const r = await start(opts)
    const pids = [...r.logTail().matchAll(/grandchild pid (\d+)/g)].map((m) => Number(m[1]))
    expect(pids).toHaveLength(2)
    expect(pids.some(isGone)).toBe(false)
    expect(psGroup(r.pgid!).length).toBeGreaterThanOrEqual(3) // sleep, node, node's sleep (bash execs into its last command)
    await r.stop()
    expect(pids.every(isGone)).toBe(true)
    expect(psGroup(r.pgid!)).toEqual([])
  })

  it('a launch that traps and ignores SIGTERM is SIGKILLed after the grace period', async () => {
    const launch = `trap '' TERM; ${fakeLaunch('vllm', '--ignore-sigterm')}`
    const { opts, log } = options(launch, { stopGraceMs: 500 })
    const r = await start(opts)
    const t0 = Date.now()
    await r.stop()
    const took = Date.now() - t0
    expect(took).toBeGreaterThanOrEqual(500)
    expect(took).toBeLessThan(500 + 3000)
    expect(groupAlive(r.pgid!)).toBe(false)
    expect(readFileSync(r.logPath!, 'utf8')).toContain('fake-engine: ignoring SIGTERM')
    expect(log.lines.some((l) => l.includes('killed with SIGKILL'))).toBe(true)
  })

  it('the guard records the group by pid and leader start time at launch, and forgets it once stop() saw it gone', async () => {
    const saved: CleanupTask[][] = []
    const guard = createRunGuard({
      runId: 'r1',
      log: memoryLogger(),
      watchdogScript: null,
      onChange: (tasks) => saved.push(JSON.parse(JSON.stringify(tasks)) as CleanupTask[]),
    })
    const { opts } = options(fakeLaunch('vllm'), { guard })
    const r = await start(opts)
    const start0 = startTime(r.pgid!)
    expect(start0).toBeGreaterThan(0)
    expect(saved.at(-1)).toEqual([{ kind: 'group', pgid: r.pgid, start: start0 }])
    await r.stop()
    expect(psGroup(r.pgid!)).toEqual([])
    expect(saved.at(-1)).toEqual([])
  })

  it('exited resolves when the engine dies on its own after it was ready', async () => {
    const { opts } = options(fakeLaunch('sglang', '--exit-after-ms 1500 --exit-code 9'), { engine: 'sglang' })
    const r = await start(opts)
    expect(await r.exited).toEqual({ code: 9, signal: null })
    await r.stop()
  })
})

describe('url: targets', () => {
  it('attach: readiness is checked, nothing is launched, stop() leaves the server alone', async () => {
    const f = await runFake('openai')
    fakes.push(f)
    const { opts, spawned } = options(undefined, { engine: 'openai' })
    opts.target = { ...opts.target, external: true, url: `${f.baseUrl}/` }
    const r = await start(opts)
    expect(r).toMatchObject({ baseUrl: f.baseUrl, port: f.port })
    expect(r.launch).toBeUndefined()
    expect(r.pgid).toBeUndefined()
    await r.stop()
    expect((await http.get(`${f.baseUrl}/v1/models`, 1000)).status).toBe(200)
    expect(spawned).toEqual([])
  })

  it('an external server that never gets ready times out and is left running', async () => {
    const f = await runFake('llamacpp', ['--never-ready'], 'listening on')
    fakes.push(f)
    const { opts } = options(undefined, { engine: 'llamacpp', readyTimeoutMs: 800 })
    opts.target = { ...opts.target, external: true, url: f.baseUrl }
    const error = await startError(opts)
    expect(error.kind).toBe('timeout')
    expect(error.message).toContain('Loading model')
    expect(f.child.exitCode).toBeNull()
  })
})

describe('logPathFor', () => {
  it.each([
    ['qwen-fp8-vllm', '/r/logs/qwen-fp8-vllm.log'],
    ['group/target', '/r/logs/group_target.log'],
    ['../escape me', '/r/logs/.._escape_me.log'],
  ])('%s → %s', (id, path) => {
    expect(logPathFor('/r/logs', id)).toBe(path)
  })

  it('the log dir is created on launch', async () => {
    const { opts } = options(fakeLaunch('vllm'), { id: 'a/b' })
    opts.logDir = join(opts.logDir, 'nested', 'logs')
    const r = await start(opts)
    expect(r.logPath).toBe(join(opts.logDir, 'a_b.log'))
    expect(existsSync(r.logPath!)).toBe(true)
  })
})
