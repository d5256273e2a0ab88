/**
 * The speed knobs through the sim CLI as a process: the box factor's environment variable changes the
 * served speed, the launch seed and multiplier are on stderr, and a bad value stops the simulator.
 * Served speed is read from `/metrics` (simulated seconds in steps), which a wall clock cannot blur.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseSimArgs } from '../../src/sim/index.js'
import { BOX_FACTOR_VARIABLE, launchSpeed } from '../../src/sim/speed.js'
import { profileFiles } from './profile-file.js'

const RUNNER = fileURLToPath(new URL('./run-sim-cli.ts', import.meta.url))
const TIME_SCALE = 20
// 1,000 prefill tok/s and 20 ms decode steps, no jitter: one request's steps are easy to add up.
const FLAT = profileFiles('sim-speed-cli-')('flat')

describe('parseSimArgs: speed flags', () => {
  const base = ['--profile', 'p', '--port', '1']
  it.each([
    { argv: [], env: {}, want: { launchCv: undefined, launchSeed: undefined, boxFactor: undefined } },
    {
      argv: ['--launch-cv', '0.03', '--launch-seed', '4294967295', '--slow-share=0.1', '--slow-factor', '0.5'],
      env: {},
      want: { launchCv: 0.03, launchSeed: 4294967295, slowShare: 0.1, slowFactor: 0.5 },
    },
    {
      argv: ['--slow-window', '1500'],
      env: { [BOX_FACTOR_VARIABLE]: '0.9' },
      want: { slowWindowMs: 1500, boxFactor: 0.9 },
    },
    { argv: ['--box-factor', '1.1'], env: { [BOX_FACTOR_VARIABLE]: '0.9' }, want: { boxFactor: 1.1 } },
    { argv: [], env: { [BOX_FACTOR_VARIABLE]: '' }, want: { boxFactor: undefined } },
  ])('$argv with $env', ({ argv, env, want }) => {
    expect(parseSimArgs([...base, ...argv], env)).toMatchObject(want)
  })

  it.each([
    { argv: ['--launch-cv', '0.5'], env: {}, error: '--launch-cv: expected a fraction in [0, 0.5), got "0.5"' },
    { argv: ['--launch-seed', '-1'], env: {}, error: '--launch-seed: expected an integer 0 to 2^32-1, got "-1"' },
    { argv: ['--launch-seed', '2.5'], env: {}, error: '--launch-seed: expected an integer' },
    { argv: ['--box-factor', '0'], env: {}, error: '--box-factor: expected a number > 0, got "0"' },
    { argv: ['--slow-share', '1.5'], env: {}, error: '--slow-share: expected a fraction in [0, 1], got "1.5"' },
    { argv: ['--slow-factor', '0'], env: {}, error: '--slow-factor: expected a number in (0, 1], got "0"' },
    { argv: ['--slow-window', '0'], env: {}, error: '--slow-window: expected milliseconds > 0, got "0"' },
    {
      argv: [],
      env: { [BOX_FACTOR_VARIABLE]: 'fast' },
      error: `${BOX_FACTOR_VARIABLE}: expected a number > 0 (a speed multiplier), got "fast"`,
    },
  ])('$argv with $env → $error', ({ argv, env, error }) => {
    expect(() => parseSimArgs([...base, ...argv], env)).toThrow(error)
  })
})

interface Launched {
  child: ChildProcess
  port: Promise<number>
  exit: Promise<number | null>
  stderr: () => string
}

/** Runs the CLI from source with `boxFactor` in its environment (or none); `port` resolves when it listens. */
function launch(args: string[], boxFactor: string | undefined): Launched {
  const env = { ...process.env }
  delete env[BOX_FACTOR_VARIABLE]
  if (boxFactor !== undefined) env[BOX_FACTOR_VARIABLE] = boxFactor
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, 'sim', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  })
  let out = ''
  let err = ''
  child.stderr?.on('data', (b) => (err += b))
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const port = new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (b) => {
      out += b
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+) /.exec(out)
      if (m) resolve(Number(m[1]))
    })
    void exit.then((code) => reject(new Error(`exited ${code} before listening: ${err}`)))
  })
  port.catch(() => {})
  return { child, port, exit, stderr: () => err }
}

/** One non-streamed request of 50 tokens; returns its prompt tokens, the wall ms it took and the engine's busy seconds. */
async function serveOne(port: number): Promise<{ promptTokens: number; wallMs: number; busySeconds: number }> {
  const base = `http://127.0.0.1:${port}`
  const started = performance.now()
  const res = await fetch(`${base}/v1/completions`, {
    method: 'POST',
    body: JSON.stringify({ prompt: 'one two three four five six seven', max_tokens: 50, ignore_eos: true }),
  })
  const body = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }
  const wallMs = performance.now() - started
  expect(body.usage.completion_tokens).toBe(50)
  const metrics = await (await fetch(`${base}/metrics`)).text()
  const busy = /^sim:engine_busy_seconds_total\{[^}]*\} (\S+)$/m.exec(metrics)
  return { promptTokens: body.usage.prompt_tokens, wallMs, busySeconds: Number(busy?.[1]) }
}

async function stopped(run: Launched): Promise<string> {
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
  return run.stderr()
}

describe('sim CLI: box factor and launch offset', () => {
  it(`${BOX_FACTOR_VARIABLE} slows what the sim serves; the launch seed and multiplier are on stderr`, async () => {
    const common = ['--profile', FLAT, '--time-scale', String(TIME_SCALE), '--launch-cv', '0.03']
    const runs = [
      launch([...common, '--launch-seed', '7'], '0.5'),
      launch(common, undefined),
      launch(common, undefined),
    ]
    try {
      const [slow, plain] = await Promise.all(runs.slice(0, 2).map(async (r) => serveOne(await r.port)))
      // The third serves nothing, but is stopped only once it listens: its seed is on stderr and its SIGTERM handler
      // is in place. Stopped while `tsx` still loads it (a loaded runner takes seconds), it died of the signal.
      await runs[2].port
      const [slowErr, plainErr, otherErr] = await Promise.all(runs.map(stopped))

      const drawn = launchSpeed({ launchCv: 0.03, launchSeed: 7, boxFactor: 0.5 })
      expect(slowErr).toContain(`sim: launch seed 7, speed ×${+drawn.toFixed(6)} (launch-cv 3%, box factor 0.5)`)
      const seedOf = (text: string) => Number(/sim: launch seed (\d+), speed ×(\S+) /.exec(text)?.[1])
      const plainSeed = seedOf(plainErr)
      expect(Number.isInteger(plainSeed)).toBe(true)
      // No seed given: each launch draws its own (two 32-bit draws collide with probability 2⁻³²).
      expect(seedOf(otherErr)).not.toBe(plainSeed)

      // One prefill step of P tokens at 1,000 tok/s, then 49 decode steps of 20 ms, all divided by the speed.
      const modelled = (p: number) => p / 1000 + 49 * 0.02
      expect(slow.busySeconds).toBeCloseTo(modelled(slow.promptTokens) / drawn, 9)
      const plainSpeed = launchSpeed({ launchCv: 0.03, launchSeed: plainSeed })
      expect(plainErr).toContain(`speed ×${+plainSpeed.toFixed(6)} (launch-cv 3%, box factor 1)`)
      expect(plain.busySeconds).toBeCloseTo(modelled(plain.promptTokens) / plainSpeed, 9)
      // A step is never delivered before its end, so the wall clock is at least the modelled time over the scale.
      expect(slow.wallMs).toBeGreaterThanOrEqual((slow.busySeconds * 1000) / TIME_SCALE)
    } finally {
      for (const r of runs) if (r.child.exitCode === null) r.child.kill('SIGKILL')
    }
  })

  it.each(['fast', '0'])(`${BOX_FACTOR_VARIABLE}=%s: exits 2 naming the variable and the value`, async (value) => {
    const run = launch(['--profile', FLAT], value)
    try {
      expect(await run.exit).toBe(2)
      expect(run.stderr()).toContain(
        `sim: ${BOX_FACTOR_VARIABLE}: expected a number > 0 (a speed multiplier), got "${value}"`,
      )
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL')
    }
  })
})
