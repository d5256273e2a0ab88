import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { buildPlan } from '../../src/config/build.js'
import type { TargetPlan } from '../../src/core/plan.js'
import { sim } from '../../src/engines/sim.js'
import { shellQuote } from '../../src/core/shell.js'
import { httpPorts } from '../../src/engines/http.js'
import { ConfigError } from '../../src/core/errors.js'
import { postStream } from '../helpers/sse-client.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { startTarget } from '../../src/server/index.js'
import { BOX_FACTOR_VARIABLE } from '../../src/sim/speed.js'
import { targetPlan } from '../server/target.js'

// No bundle in unit tests: the adapter launches the CLI from source through the same command shape.
vi.mock('../../src/io/cli-entry.js', () => ({
  cliEntry: () => new URL('./run-sim-cli.ts', import.meta.url).pathname,
}))
const RUNNER = new URL('./run-sim-cli.ts', import.meta.url).pathname

function target(engineOptions: Record<string, unknown>, id = 'sim-a'): TargetPlan {
  return {
    id,
    sourceKey: 'sim-{quant}',
    engine: 'sim',
    url: 'http://127.0.0.1:{port}',
    external: false,
    env: {},
    matrix: {},
    engineOptions,
    settings: {} as TargetPlan['settings'],
    gate: {},
    scenarios: [],
  }
}

const dir = mkdtempSync(join(tmpdir(), 'sim-adapter-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const http = httpPorts()

describe('sim adapter: data', () => {
  it('declares itself like the matrix file needs it', () => {
    expect(sim.name).toBe('sim')
    expect(sim.needsLaunchOrUrl).toBe(false)
    expect(Object.keys(sim.options ?? {})).toEqual([
      'profile',
      'time-scale',
      'seed',
      'load-time',
      'fault',
      'launch-cv',
      'regime-share',
      'regime-factor',
      'acceptance',
      'accept-factor',
      'slow-share',
      'slow-factor',
      'slow-window',
    ])
    expect(sim.healthPath).toBe('/health')
    expect([sim.path('completions'), sim.path('chat')]).toEqual(['/v1/completions', '/v1/chat/completions'])
    const body = { prompt: 'x', max_tokens: 3 }
    expect(sim.transformRequest(body, 'completions')).toEqual(body)
  })

  it.each([
    { status: 0, readiness: 'loading' },
    { status: 200, readiness: 'ready' },
    { status: 503, readiness: 'loading' },
    { status: 404, readiness: 'loading' },
  ])('readiness: status $status → $readiness', ({ status, readiness }) => {
    expect(sim.readiness({ status, body: '' })).toBe(readiness)
  })

  it('launch command: quoted node and CLI, the options, and {port} left for the launcher', () => {
    // engineOptions hold what the matrix file parsed: load-time is already in ms.
    const cmd = sim.defaultLaunch?.(
      target({ profile: 'vllm-qwen36-27b-fp8', 'time-scale': 20, seed: 5, 'load-time': 1500 }),
    )
    expect(cmd).toBe(
      `${shellQuote(process.execPath)} ${shellQuote(RUNNER)} sim --profile vllm-qwen36-27b-fp8 --time-scale 20 --seed 5 --load-ms 1500 --port {port}`,
    )
  })

  it('fault: passed to the simulator, so a target can break a shipped profile', () => {
    expect(sim.defaultLaunch?.(target({ profile: 'vllm-qwen36-27b-fp8', fault: 'degenerate' }))).toContain(
      '--profile vllm-qwen36-27b-fp8 --fault degenerate --port {port}',
    )
    expect(sim.options?.fault?.safeParse('garbage').success).toBe(false)
  })

  it('speed options: the matrix file parses them, the launch passes them as flags (no launch seed: launches differ)', () => {
    const data = {
      version: 1,
      scenarios: { s: { 'input-tokens': 8, 'output-tokens': 8 } },
      targets: {
        'sim-a': {
          engine: 'sim',
          profile: 'vllm-qwen35-08b',
          'launch-cv': '3%',
          'regime-share': '15%',
          'regime-factor': 0.9,
          'slow-share': '10%',
          'slow-factor': 0.5,
          'slow-window': '1.5s',
        },
      },
    }
    const plan = buildPlan(data, { configPath: 't.yml', resolvedPath: '/t.yml', engines: [sim] })
    const t = plan.targets[0]
    expect(t.engineOptions).toMatchObject({
      'launch-cv': 0.03,
      'regime-share': 0.15,
      'regime-factor': 0.9,
      'slow-share': 0.1,
      'slow-factor': 0.5,
      'slow-window': 1500,
    })
    expect(sim.defaultLaunch?.(t)).toContain(
      '--profile vllm-qwen35-08b --launch-cv 0.03 --regime-share 0.15 --regime-factor 0.9 --slow-share 0.1 --slow-factor 0.5 --slow-window 1500 --port {port}',
    )
    expect(sim.defaultLaunch?.(target({ profile: 'vllm-qwen35-08b' }))).not.toMatch(/--launch|--regime|--slow|--box/)
  })

  it('a profile path becomes absolute, so the child finds it from any working directory', () => {
    writeFileSync(
      join(dir, 'mine.json'),
      JSON.stringify({
        name: 'mine',
        model: 'm',
        source: 's',
        prefill: { 'tokens-per-s': 10 },
        decode: { 'step-ms': 5 },
      }),
    )
    const cwd = process.cwd()
    try {
      process.chdir(dir)
      expect(sim.defaultLaunch?.(target({ profile: './mine.json' }))).toContain(
        `--profile ${shellQuote(join(dir, 'mine.json'))} --port {port}`,
      )
    } finally {
      process.chdir(cwd)
    }
  })

  it('no profile → a ConfigError naming the target', () => {
    let error: unknown
    try {
      sim.defaultLaunch?.(target({}))
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    const got = (error as ConfigError).problems
    expect(got).toHaveLength(1)
    expect(got[0]).toContain('targets.sim-{quant}.profile (sim-a): engine sim needs a profile')
  })

  /** The problems of a matrix file holding one sim target, checked with the adapter's own option fields. */
  function optionProblems(key: string, fields: Record<string, unknown>): string[] {
    const data = {
      version: 1,
      scenarios: { s: { 'input-tokens': 8, 'output-tokens': 8 } },
      targets: { [key]: { engine: 'sim', ...fields } },
    }
    try {
      buildPlan(data, { configPath: 't.yml', resolvedPath: '/t.yml', engines: [sim] })
    } catch (error) {
      if (error instanceof ConfigError) return error.problems
      throw error
    }
    throw new Error('expected a ConfigError, got a plan')
  }

  it.each([
    {
      key: 'sim-a',
      options: { profile: 'nope' },
      problems: ['targets.sim-a.profile: unknown sim profile "nope" (shipped: vllm-qwen36-27b-fp8'],
    },
    {
      key: 'sim-a',
      options: { profile: './missing.json' },
      problems: ['targets.sim-a.profile: sim profile ./missing.json: cannot read'],
    },
    {
      key: 'sim-a',
      options: { profile: 'vllm-qwen35-08b', 'time-scale': 0, seed: 'x', 'load-time': 'soon' },
      problems: [
        'targets.sim-a.time-scale: must be a number > 0 (got 0)',
        'targets.sim-a.seed: must be an integer (got "x")',
        'targets.sim-a.load-time: "soon" is not a duration',
      ],
    },
    {
      key: 'sim-a',
      options: {
        profile: 'vllm-qwen35-08b',
        'launch-cv': '50%',
        'slow-share': '120%',
        'slow-factor': 0,
        'slow-window': 2,
      },
      problems: [
        'targets.sim-a.launch-cv: must be below 50%',
        'targets.sim-a.slow-share: must be at most 100% (got "120%")',
        'targets.sim-a.slow-factor: must be a number in (0, 1] (got 0)',
        'targets.sim-a.slow-window: needs a unit, e.g. "2s"',
      ],
    },
    {
      key: 'sim-a',
      options: { profile: 'vllm-qwen35-08b', 'slow-factor': 1.5 },
      problems: ['targets.sim-a.slow-factor: must be a number in (0, 1] (got 1.5)'],
    },
    // A profile holding placeholders is checked once they are filled, for each matrix combination.
    {
      key: 'sim-{quant}',
      options: { matrix: { quant: ['x'] }, profile: 'vllm-qwen35-{quant}' },
      problems: ['targets.sim-{quant}.profile: unknown sim profile "vllm-qwen35-x"'],
    },
  ])('bad options $options → problems naming the target and the option', ({ key, options, problems }) => {
    const got = optionProblems(key, options)
    expect(got).toHaveLength(problems.length)
    problems.forEach((p, i) => expect(got[i]).toContain(p))
  })

  it.each(['plain/path-1.json', 'with space', "it's", '$HOME', 'a"b'])(
    'shellQuote round-trips %s through bash',
    (word) => {
      expect(execFileSync('bash', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8' })).toBe(word)
    },
  )
})

describe('sim adapter: against the launched simulator', () => {
  it('launch → loading (refused) → ready → tokenize, info, counters and spec-decode deltas → SIGTERM exits 0', async () => {
    const { port } = await import('node:net').then(
      (net) =>
        new Promise<{ port: number }>((resolve) => {
          const probe = net.createServer().listen(0, '127.0.0.1', () => {
            const a = probe.address() as { port: number }
            probe.close(() => resolve(a))
          })
        }),
    )
    const cmd = (
      sim.defaultLaunch?.(
        target({ profile: 'vllm-qwen38-27b-nvfp4-mtp3', 'time-scale': 200, seed: 3, 'load-time': 300 }),
      ) ?? ''
    ).replace('{port}', String(port))
    const child = spawn('bash', ['-c', cmd], {
      env: { ...process.env, NODE_OPTIONS: '--import tsx' },
      stdio: 'ignore',
      detached: true,
    })
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const base = `http://127.0.0.1:${port}`
    try {
      const seen: string[] = []
      for (let i = 0; i < 300; i++) {
        const state = sim.readiness(await http.get(base + sim.healthPath, 1000))
        if (seen.at(-1) !== state) seen.push(state)
        if (state === 'ready') break
        await new Promise((r) => setTimeout(r, 25))
      }
      expect(seen).toEqual(['loading', 'ready'])

      expect(await sim.tokenize?.(http, base, undefined, 'one two three four')).toBe(4)
      expect(await sim.info(http, base + '/')).toEqual({
        version: 'sim-1',
        server: {
          profile: 'vllm-qwen38-27b-nvfp4-mtp3',
          emulates: 'vLLM 0.27.2 nightly',
          // The box the profile stands for, 200 times as fast at time scale 200 (sim/roofline-hint.ts).
          roofline: {
            bandwidth: 200 * 273e9,
            weights: 16.4e9,
            kvPerToken: 65536,
            source: 'sim profile vllm-qwen38-27b-nvfp4-mtp3 at time scale 200',
          },
        },
      })

      const before = await sim.counters?.(http, base)
      const body = sim.transformRequest(
        { prompt: 'a b c', max_tokens: 101, stream: true, ignore_eos: true },
        'completions',
      )
      const { frames } = await postStream(base + sim.path('completions'), body)
      expect(frames.at(-1)?.data).toBe('[DONE]')
      const after = await sim.counters?.(http, base)
      expect((after?.['vllm:generation_tokens_total'] ?? 0) - (before?.['vllm:generation_tokens_total'] ?? 0)).toBe(101)

      const spec = sim.specDecode?.(before, after, [])
      const drafts =
        (after?.['vllm:spec_decode_num_drafts_total'] ?? 0) - (before?.['vllm:spec_decode_num_drafts_total'] ?? 0)
      // 100 tokens after the first, each verify step emitting acceptance-length tokens on average.
      expect(drafts * (spec?.acceptanceLength ?? 0)).toBeCloseTo(100, 9)
      expect(spec?.acceptanceRate).toBeCloseTo((spec?.acceptedTokens ?? 0) / (spec?.draftTokens ?? 1), 12)
      // The profile accepts 0..3 drafts with weights 20/25/25/30 %: 1.65 of 3 on average.
      expect(spec?.acceptanceLength).toBeGreaterThan(2.3)
      expect(spec?.acceptanceLength).toBeLessThan(3)
      expect(spec?.source).toContain('/metrics')

      process.kill(-(child.pid as number), 'SIGTERM')
      expect(await exit).toBe(0)
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL')
    }
  })

  it(`an engine launched the normal way sees the host's ${BOX_FACTOR_VARIABLE}`, async () => {
    // The least-privilege engine environment keeps it: the name does not look secret.
    vi.stubEnv(BOX_FACTOR_VARIABLE, '0.8')
    vi.stubEnv('NODE_OPTIONS', '--import tsx')
    const logDir = mkdtempSync(join(tmpdir(), 'sim-box-'))
    try {
      const plan = targetPlan({ id: 'sim-box', engine: 'sim', engineOptions: { profile: 'vllm-qwen35-08b' } })
      const running = await startTarget({
        target: { ...plan, launch: sim.defaultLaunch?.(plan) },
        adapter: sim,
        logDir,
        log: memoryLogger(),
        smoke: async () => {},
      })
      await running.stop()
      // Written before the listening line; stop() waits for the group's output.
      expect(readFileSync(running.logPath as string, 'utf8')).toMatch(
        /sim: launch seed \d+, speed ×0\.8 \(launch-cv 0%, box factor 0\.8\)/,
      )
    } finally {
      vi.unstubAllEnvs()
      rmSync(logDir, { recursive: true, force: true })
    }
  })
})
