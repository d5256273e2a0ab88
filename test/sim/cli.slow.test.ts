import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parseSimArgs } from '../../src/sim/index.js'

const RUNNER = fileURLToPath(new URL('./run-sim-cli.ts', import.meta.url))

describe('parseSimArgs', () => {
  it.each([
    { argv: ['sim', '--profile', 'p', '--port', '8000'], want: { profile: 'p', port: 8000, host: '127.0.0.1' } },
    {
      argv: ['--profile=p', '--port=0', '--time-scale', '50', '--seed', '7', '--load-ms', '250', '--host', '0.0.0.0'],
      want: { port: 0, timeScale: 50, seed: 7, loadMs: 250, host: '0.0.0.0' },
    },
    { argv: ['--profile', 'p', '--port', '1', '--fault', 'degenerate'], want: { fault: 'degenerate' } },
    { argv: ['--profile', 'p', '--port', '1', '--fault=wrong-answers'], want: { fault: 'wrong-answers' } },
    { argv: ['--profile', 'p', '--port', '1', '--fault', 'none'], want: { fault: 'none' } },
    {
      argv: ['--profile', 'p', '--port', '1', '--regime-share', '0.2', '--regime-factor', '0.85'],
      want: { regimeShare: 0.2, regimeFactor: 0.85 },
    },
  ])('$argv', ({ argv, want }) => {
    expect(parseSimArgs(argv)).toMatchObject(want)
  })

  it.each([
    { argv: ['--port', '1'], error: '--profile is required' },
    { argv: ['--profile', 'p'], error: '--port is required' },
    { argv: ['--profile', 'p', '--port', '70000'], error: '--port: expected a port number, got "70000"' },
    { argv: ['--profile', 'p', '--port', '1', '--time-scale', '0'], error: '--time-scale: expected a number > 0' },
    { argv: ['--profile', 'p', '--port', '1', '--seed', '1.5'], error: '--seed: expected an integer' },
    { argv: ['--profile', 'p', '--port', '1', '--speed', '2'], error: 'unknown argument "--speed"' },
    { argv: ['--profile'], error: '--profile needs a value' },
    {
      argv: ['--profile', 'p', '--port', '1', '--regime-factor', '1.2'],
      error: '--regime-factor: expected a number in (0, 1], got "1.2"',
    },
    {
      argv: ['--profile', 'p', '--port', '1', '--fault', 'slow'],
      error:
        '--fault: expected one of degenerate, wrong-answers, benchmark-garbage, no-prefix-cache, drafter-drops-prefix-cache, none, got "slow"',
    },
  ])('$argv → $error', ({ argv, error }) => {
    expect(() => parseSimArgs(argv)).toThrow(error)
  })
})

/** Runs the CLI from source; resolves with the first stdout line. */
function launch(args: string[]): {
  child: ChildProcess
  line: Promise<string>
  exit: Promise<number | null>
  stderr: () => string
} {
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr?.on('data', (b) => (err += b))
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const line = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (b) => {
      out += b
      if (out.includes('\n')) resolve(out.split('\n')[0])
    })
    void exit.then((code) => reject(new Error(`exited ${code} before printing: ${err}`)))
  })
  line.catch(() => {}) // only some tests wait for the line
  return { child, line, exit, stderr: () => err }
}

describe('simMain as a process', () => {
  it('prints one line when listening, serves, and exits 0 on SIGTERM', async () => {
    const run = launch(['sim', '--profile', 'vllm-qwen35-08b', '--port', '0', '--load-ms', '200', '--seed', '4'])
    try {
      const line = await run.line
      expect(line).toMatch(
        /^sim: vllm-qwen35-08b \(Qwen\/Qwen3\.5-0\.8B, as .+\) listening on http:\/\/127\.0\.0\.1:\d+ \(time scale 1, seed 4\)$/,
      )
      const port = Number(/:(\d+) /.exec(line)?.[1])
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200)
      run.child.kill('SIGTERM')
      expect(await run.exit).toBe(0)
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL')
    }
  })

  it('--fault degenerate: a shipped profile streams garbage, and the line says so', async () => {
    const run = launch([
      'sim',
      '--profile',
      'vllm-qwen35-08b',
      '--port',
      '0',
      '--time-scale',
      '50',
      '--fault',
      'degenerate',
    ])
    try {
      const line = await run.line
      expect(line).toMatch(/\(time scale 50, seed 1, fault degenerate\)$/)
      const port = Number(/:(\d+) /.exec(line)?.[1])
      const res = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'What is 4821 + 377?', max_tokens: 4 }),
      })
      expect(((await res.json()) as any).choices[0].text).toBe("'s's's's")
      run.child.kill('SIGTERM')
      expect(await run.exit).toBe(0)
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL')
    }
  })

  it('exits 0 on SIGINT while still loading', async () => {
    const run = launch(['sim', '--profile', 'vllm-qwen35-08b', '--port', '0', '--load-ms', '60000'])
    try {
      // The loading line comes after the signal handlers are installed.
      for (let i = 0; i < 300 && !run.stderr().includes('sim: loading vllm-qwen35-08b for 60000 ms'); i++)
        await new Promise((r) => setTimeout(r, 20))
      expect(run.stderr()).toContain('sim: loading')
      run.child.kill('SIGINT')
      expect(await run.exit).toBe(0)
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL')
    }
  })

  it.each([
    { args: ['sim', '--port', '1'], code: 2, message: '--profile is required' },
    {
      args: ['sim', '--profile', 'no-such-profile', '--port', '0'],
      code: 1,
      message: 'unknown sim profile "no-such-profile" (shipped: vllm-qwen36-27b-fp8',
    },
  ])('$args → exit $code', async ({ args, code, message }) => {
    const run = launch(args)
    try {
      expect(await run.exit).toBe(code)
      expect(run.stderr()).toContain(message)
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL')
    }
  })
})
