/**
 * A `stop:` target, the two-box shape with two loopback processes: the launch serves as the head
 * and starts a "worker" in a session of its own (as ssh would on a second box), out of reach of
 * the launch's process group. Only the target's `stop` command reaches it — on the cancelled
 * run's teardown, again in the post step, and from the watchdog when the action is SIGKILLed.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { ROOT, onceStdout, runAction, type ActionRun } from '../helpers/action.js'

const FAKE = join(ROOT, 'test/helpers/fake-engine.mjs')

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await delay(50)
  }
  return check()
}

/** Writes the two-box config; returns the directory and where the worker's pid will be. */
async function setup() {
  const cwd = await mkdtemp(join(tmpdir(), 'lbg-stop-'))
  await writeFile(
    join(cwd, 'head.sh'),
    [
      '# the "worker box": its own session, so no signal to the launch group reaches it',
      `setsid node ${FAKE} --dialect vllm --port 0 --model worker </dev/null >"$WORK/worker.log" 2>&1 &`,
      'echo $! > "$WORK/worker.pid"',
      `exec node ${FAKE} --dialect vllm --port "$PORT" --model head --itl-ms 20`,
      '',
    ].join('\n'),
  )
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'defaults: { rounds: 3, discard: 1, ready-timeout: 20s, request-timeout: 60s, quality: false }',
      'scenarios:',
      '  long: { input-tokens: 16, output-tokens: 2000, concurrency: 1 }',
      'targets:',
      '  two-box:',
      '    engine: vllm',
      '    model: head',
      '    launch: bash head.sh',
      `    env: { WORK: ${JSON.stringify(cwd)} }`,
      '    stop: kill "$(cat "$WORK/worker.pid")" && echo "worker of {target} on head port $PORT stopped"',
      '',
    ].join('\n'),
  )
  return { cwd, pidFile: join(cwd, 'worker.pid') }
}

/** Runs the main step and sends `signal` once the worker runs and the head is measuring. */
async function mainStep(
  cwd: string,
  pidFile: string,
  signal: NodeJS.Signals,
): Promise<{ run: ActionRun; worker: number }> {
  let worker = 0
  const run = await runAction({
    cwd,
    inputs: { config: 'bench.yml', 'results-dir': 'out' },
    timeoutMs: 90_000,
    onSpawn: (child) =>
      onceStdout(child, /two-box: ready at/, async () => {
        worker = Number((await readFile(pidFile, 'utf8')).trim())
        child.kill(signal)
      }),
  })
  return { run, worker }
}

describe('stop: reaches what the process group does not', () => {
  it('cancel (SIGTERM) runs stop on teardown; the post step runs it again; the worker is gone', async () => {
    const { cwd, pidFile } = await setup()
    const { run, worker } = await mainStep(cwd, pidFile, 'SIGTERM')
    expect(worker, run.stdout).toBeGreaterThan(1)
    expect(run.code, run.stdout).toBe(1)
    expect(run.stdout).toMatch(/cancelled by SIGTERM/)
    expect(await until(() => !alive(worker), 2000)).toBe(true)
    const log = await readFile(join(cwd, 'out/logs/two-box.log'), 'utf8')
    expect(log).toMatch(/stop: \$ kill/)
    expect(log).toMatch(/worker of two-box on head port \d+ stopped/)

    const post = await runAction({
      cwd,
      inputs: { config: 'bench.yml', 'results-dir': 'out' },
      state: { ...run.state, isPost: 'true' },
    })
    expect(post.code, post.stdout).toBe(0)
    expect(post.stdout).toMatch(/post: ran 1 stop command/)
    const after = await readFile(join(cwd, 'out/logs/two-box.log'), 'utf8')
    expect(after.match(/stop: \$ kill/g)).toHaveLength(2)
    expect(alive(worker)).toBe(false)
  })

  it('SIGKILL of the action: the watchdog runs stop, the worker is gone within 2 s', async () => {
    const { cwd, pidFile } = await setup()
    const { run, worker } = await mainStep(cwd, pidFile, 'SIGKILL')
    expect(worker, run.stdout).toBeGreaterThan(1)
    expect(run.code).toBeNull()
    expect(await until(() => !alive(worker), 2000), 'worker still alive 2 s after SIGKILL of the action').toBe(true)
    expect(existsSync(join(cwd, 'out/logs/two-box.log'))).toBe(true)
    expect(await readFile(join(cwd, 'out/logs/two-box.log'), 'utf8')).toMatch(/stop: \$ kill/)
  })
})
