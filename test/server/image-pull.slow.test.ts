/**
 * A `container:` target's image: asked for before the launch, pulled first when the runtime lacks it (timed apart
 * from startup), and the `run` told `--pull=never`. A runtime stand-in on PATH records the calls; the container's
 * command is the fake engine, run in the foreground as `run` would.
 */
import { rmSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StartError } from '../../src/core/errors.js'
import type { ContainerPlan } from '../../src/core/plan.js'
import { engineByName } from '../../src/engines/registry.js'
import { httpPorts } from '../../src/engines/http.js'
import { startTarget, type RunningTarget, type StartOptions } from '../../src/server/index.js'
import { FAKE_ENGINE } from '../engines/fake.js'
import { fakeRuntime, PULL_PASSWORD, type Call, type FakeRuntime } from '../helpers/fake-runtime.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { isGone } from './procs.js'
import { targetPlan } from './target.js'

const IMAGE = 'registry.invalid/team/engine:1.0'
/** The stand-in's scripted pull. */
const PULL_S = 0.5
/**
 * What the measured pull may exceed the script's sleep by: the stand-in's own start (bash, two `date` forks) and
 * its exit being seen, a few milliseconds on an idle machine; two seconds leaves room for a loaded one.
 */
const PULL_OVERHEAD_S = 2
/** The SIGTERM → SIGKILL step of a runtime call that ignores SIGTERM (KILL_AFTER_MS in src/server/container.ts). */
const KILL_AFTER_S = 2

const savedPath = process.env.PATH
const running: RunningTarget[] = []
const dirs: string[] = []
let runtime: FakeRuntime

beforeEach(() => {
  runtime = fakeRuntime()
  process.env.PATH = `${runtime.bin}:${savedPath}`
})
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()))
  process.env.PATH = savedPath
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const http = httpPorts()

async function smoke(baseUrl: string): Promise<void> {
  const answer = await http.post(
    `${baseUrl}/v1/completions`,
    { model: 'fake-model', prompt: 'hi', max_tokens: 1, stream: true },
    5000,
  )
  if (answer.status !== 200) throw new Error(`smoke: HTTP ${answer.status}`)
}

function options(kind: 'docker' | 'podman', more: { readyTimeoutMs?: number; signal?: AbortSignal } = {}) {
  const container: ContainerPlan = {
    image: IMAGE,
    runtime: kind,
    gpus: 'none',
    volumes: [],
    env: {},
    command: [process.execPath, FAKE_ENGINE, '--dialect', 'vllm', '--port', '{port}'],
  }
  const logDir = mkdtempSync(join(tmpdir(), 'lbg-image-pull-'))
  dirs.push(logDir)
  const log = memoryLogger()
  const opts: StartOptions = {
    target: targetPlan({ id: 'boxed', container, readyTimeoutMs: more.readyTimeoutMs }),
    adapter: engineByName('vllm'),
    logDir,
    log,
    smoke,
    signal: more.signal,
  }
  return { opts, log }
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

const verb = (call: Call) => (call.args[0] === 'image' ? `image ${call.args[1]}` : call.args[0])
const verbs = (calls: Call[]) => calls.map(verb)

describe.each(['docker', 'podman'] as const)('%s: an image the runtime lacks', (kind) => {
  it('is pulled before the run, timed apart from startup, and the run gets --pull=never', async () => {
    runtime.pulls(IMAGE, { ok: PULL_S })
    const { opts, log } = options(kind)
    const r = await start(opts)
    const calls = runtime.calls()
    const check = kind === 'podman' ? 'image exists' : 'image inspect'
    expect(verbs(calls).slice(0, 4)).toEqual([check, 'pull', 'pull-done', 'run'])
    const [asked, pull, pulled, run] = calls
    expect(asked.args.at(-1)).toBe(IMAGE)
    expect(pull.args).toEqual(['pull', IMAGE])
    expect(run.args).toContain('--pull=never')
    // The run began after the pull had ended: no part of the pull is inside the run.
    expect(run.at).toBeGreaterThanOrEqual(pulled.at)
    const pullS = r.startup!.pullMs! / 1000
    expect(pullS).toBeGreaterThanOrEqual(PULL_S)
    expect(pullS).toBeLessThan(PULL_S + PULL_OVERHEAD_S)
    expect(r.startup!.totalMs).toBeGreaterThan(0)
    expect(log.lines.join('\n')).toMatch(
      new RegExp(
        `boxed: image ${IMAGE} is not present for ${kind}; pulling it \\(up to 10s, timed apart from startup\\)`,
      ),
    )
    expect(log.lines.join('\n')).toMatch(/boxed: ready at .*; image pull [\d.]+m?s apart\)/)
  })
})

describe('an image the runtime has', () => {
  it.each(['docker', 'podman'] as const)('%s: no pull, no pull time', async (kind) => {
    runtime.present(IMAGE)
    const { opts, log } = options(kind)
    const r = await start(opts)
    expect(verbs(runtime.calls()).slice(0, 2)).toEqual([kind === 'podman' ? 'image exists' : 'image inspect', 'run'])
    expect(verbs(runtime.calls())).not.toContain('pull')
    expect(r.startup).toBeDefined()
    expect(r.startup).not.toHaveProperty('pullMs')
    expect(log.lines.join('\n')).not.toMatch(/pulling|image pull/)
  })
})

describe('a pull that fails', () => {
  it('is an error naming the target and the image with the runtime’s last lines, redacted; nothing runs', async () => {
    runtime.pulls(IMAGE, 'fail')
    const { opts } = options('docker')
    const error = await startError(opts)
    expect(error.kind).toBe('spawn')
    expect(error.message).toContain(`boxed: image ${IMAGE} is not present locally and could not be pulled`)
    expect(error.message).toContain(`\`docker pull ${IMAGE}\` exited with code 1: Trying to pull ${IMAGE}... |`)
    expect(error.message).toContain('no such host')
    expect(error.message).toContain('https://***@registry.invalid')
    expect(error.message).not.toContain(PULL_PASSWORD)
    expect(verbs(runtime.calls())).not.toContain('run')
    for (const call of runtime.calls()) expect(isGone(call.pid), `${verb(call)} (pid ${call.pid})`).toBe(true)
  })

  it('that hangs ignoring SIGTERM is killed at the target’s ready-timeout, and nothing runs', async () => {
    runtime.pulls(IMAGE, 'hang')
    const { opts } = options('docker', { readyTimeoutMs: 1500 })
    const since = Date.now()
    const error = await startError(opts)
    const elapsedS = (Date.now() - since) / 1000
    expect(error.message).toContain(`boxed: image ${IMAGE} is not present locally and could not be pulled`)
    expect(error.message).toContain(`\`docker pull ${IMAGE}\` did not finish within 1.5s`)
    expect(elapsedS).toBeGreaterThanOrEqual(1.5 + KILL_AFTER_S)
    expect(elapsedS).toBeLessThan(1.5 + KILL_AFTER_S + PULL_OVERHEAD_S)
    const pull = runtime.calls().find((c) => c.args[0] === 'pull')!
    expect(isGone(pull.pid)).toBe(true)
    expect(verbs(runtime.calls())).not.toContain('run')
  })

  it('is stopped when the run is cancelled: an aborted start, the pull gone', async () => {
    runtime.pulls(IMAGE, 'hang')
    const controller = new AbortController()
    const { opts } = options('docker', { readyTimeoutMs: 60_000, signal: controller.signal })
    const since = Date.now()
    setTimeout(() => controller.abort(), 500)
    const error = await startError(opts)
    const elapsedS = (Date.now() - since) / 1000
    expect(error.kind).toBe('aborted')
    // SIGTERM at the abort (ignored), SIGKILL two seconds later: the start ends then, not at the 60 s bound.
    expect(elapsedS).toBeLessThan(0.5 + KILL_AFTER_S + PULL_OVERHEAD_S)
    expect(error.message).toContain(`cancelled during \`docker pull ${IMAGE}\``)
    const pull = runtime.calls().find((c) => c.args[0] === 'pull')!
    expect(isGone(pull.pid)).toBe(true)
  })
})
