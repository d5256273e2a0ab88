// From the matrix file to target plans: matrix, placeholders, defaults, gates, engine options.
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildPlan, fillPort, fillRuntime, loadPlan } from '../../src/config/index.js'
import { matrixJsonSchema } from '../../src/config/schema.js'
import { ConfigError } from '../../src/core/errors.js'
import { DEFAULT_QUALITY_GATE } from '../../src/core/quality.js'
import { duration } from '../../src/core/fields.js'
import type { EngineAdapter } from '../../src/engines/types.js'
import type { Plan, TargetPlan } from '../../src/core/plan.js'
import { TEST_ENGINES } from './engines.js'
import { baseConfig, tempDir } from './write.js'

const dir = tempDir()
afterAll(() => dir.remove())

function plan(data: unknown, options: { only?: string; shard?: string } = {}): Plan {
  return buildPlan(data, { configPath: 'test.yml', resolvedPath: '/tmp/test.yml', engines: TEST_ENGINES, ...options })
}

function byId(p: Plan, id: string): TargetPlan {
  const target = p.targets.find((t) => t.id === id)
  if (!target) throw new Error(`no target ${id} in ${p.targets.map((t) => t.id).join(', ')}`)
  return target
}

function withTargets(targets: Record<string, unknown>, edit: (c: ReturnType<typeof baseConfig>) => void = () => {}) {
  const config = baseConfig()
  config.targets = targets
  edit(config)
  return config
}

describe('the SPEC §3 example', () => {
  const path = fileURLToPath(new URL('fixtures/spec-example.yml', import.meta.url))

  it('expands into the cells and fields the spec describes', async () => {
    const p = await loadPlan(path)
    expect(p.hardware).toBe('dgx-spark')
    expect(p.cells.map((c) => c.id)).toEqual([
      'qwen38-27b-fp8-vllm/chat-1k',
      'qwen38-27b-fp8-vllm/long-100k',
      'qwen38-27b-nvfp4-vllm/chat-1k',
      'qwen38-27b-nvfp4-vllm/long-100k',
      'qwen38-27b-q4km-llamacpp/chat-1k',
      'shared-endpoint/chat-1k',
      'shared-endpoint/long-100k',
    ])
    const fp8 = byId(p, 'qwen38-27b-fp8-vllm')
    expect(fp8).toMatchObject({
      sourceKey: 'qwen38-27b-{quant}-vllm',
      engine: 'vllm',
      quant: 'fp8',
      model: '/models/Qwen3.8-27B-fp8',
      launch: './scripts/run_qwen38_vllm.sh --model /models/Qwen3.8-27B-fp8 --port {port}',
      url: 'http://127.0.0.1:{port}',
      external: false,
      env: { CUDA_HOME: '/usr/local/cuda-13.0' },
      matrix: { quant: 'fp8' },
    })
    expect(fp8.settings).toEqual({
      rounds: 3,
      discard: 1,
      readyTimeoutMs: 20 * 60_000,
      requestTimeoutMs: 10 * 60_000,
      api: 'completions',
      confirm: 1,
      confirmFresh: false,
      maxRounds: 3,
      noiseFloor: 0.015,
      creepWindow: 20,
      bisect: { mode: 'off', budgetMs: 4 * 3_600_000 },
      memoryFloor: { kind: 'bytes', value: 4 * 2 ** 30 },
      dropCaches: false,
      maxErrorShare: 0.1,
      passEnv: [],
      allowGpuProcesses: [],
      requestBody: {},
      quality: DEFAULT_PROBE,
      ab: { mode: 'confirm', launches: 2, maxLaunches: 6, budgetMs: 3_600_000 },
    })
    expect(fp8.gate).toEqual({
      decode: { maxRegression: 0.05, stat: 'mean' },
      ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
      'failed-requests': { max: 0.01 },
      goodput: { maxDrop: 0.05 },
      quality: DEFAULT_QUALITY_GATE,
    })
    expect(byId(p, 'qwen38-27b-q4km-llamacpp')).toMatchObject({ quant: 'Q4_K_M', matrix: {} })
    expect(byId(p, 'shared-endpoint')).toMatchObject({
      external: true,
      url: 'http://127.0.0.1:30000',
      model: 'default',
    })
    expect(byId(p, 'shared-endpoint').launch).toBeUndefined()
  })

  it('loads the same plan from JSON', async () => {
    const yaml = await loadPlan(path)
    const { parse } = await import('yaml')
    const { readFileSync } = await import('node:fs')
    const name = dir.write('spec.json', parse(readFileSync(path, 'utf8')))
    const json = await loadPlan(name, { cwd: dir.path })
    expect(json.targets).toEqual(yaml.targets)
    expect(json.configPath).toBe('spec.json')
    expect(json.resolvedPath).toBe(`${dir.path}/spec.json`)
  })
})

describe('matrix', () => {
  it('is a cartesian product in key order; every key is a placeholder and a matrix field', () => {
    const p = plan(
      withTargets({
        'm-{quant}-tp{tp}': {
          engine: 'vllm',
          matrix: { quant: ['fp8', 'nvfp4'], tp: [1, 2] },
          launch: 'serve --tp {tp} --q {quant}',
        },
      }),
    )
    expect(p.targets.map((t) => t.id)).toEqual(['m-fp8-tp1', 'm-fp8-tp2', 'm-nvfp4-tp1', 'm-nvfp4-tp2'])
    expect(byId(p, 'm-nvfp4-tp2')).toMatchObject({
      quant: 'nvfp4',
      matrix: { quant: 'nvfp4', tp: '2' },
      launch: 'serve --tp 2 --q nvfp4',
    })
    expect(p.cells).toHaveLength(8)
  })

  it('lets an explicit quant win over the matrix value it is built from', () => {
    const p = plan(
      withTargets({
        'm-{quant}': { engine: 'vllm', matrix: { quant: ['fp8'] }, quant: '{quant}-dynamic', launch: 'x' },
      }),
    )
    expect(p.targets[0]).toMatchObject({ id: 'm-fp8-dynamic', quant: 'fp8-dynamic', matrix: { quant: 'fp8' } })
  })

  it('fills model from a matrix key named model', () => {
    const p = plan(
      withTargets({
        '{model}-vllm': { engine: 'vllm', matrix: { model: ['llama', 'qwen'] }, launch: 'serve {model}' },
      }),
    )
    expect(p.targets.map((t) => [t.id, t.model, t.launch])).toEqual([
      ['llama-vllm', 'llama', 'serve llama'],
      ['qwen-vllm', 'qwen', 'serve qwen'],
    ])
  })
})

describe('placeholders', () => {
  const target = {
    engine: 'vllm',
    quant: 'fp8',
    model: '/models/{target}',
    launch: `serve {model} --q {quant} --name {target} --port {port} --home \${HOME} | awk '{print $1}'`,
    url: 'http://127.0.0.1:{port}',
    env: { LOG: '/logs/{target}-{port}.log', WORKERS: 4, DEBUG: true },
  }

  it('fill everything but {port}, and leave shell syntax alone', () => {
    const t = plan(withTargets({ 'vllm-{quant}': target })).targets[0]
    expect(t).toMatchObject({
      id: 'vllm-fp8',
      model: '/models/vllm-fp8',
      launch: `serve /models/vllm-fp8 --q fp8 --name vllm-fp8 --port {port} --home \${HOME} | awk '{print $1}'`,
      url: 'http://127.0.0.1:{port}',
      env: { LOG: '/logs/vllm-fp8-{port}.log', WORKERS: '4', DEBUG: 'true' },
    })
    expect(t.port).toBeUndefined()
    expect(fillPort(t.launch!, 41234)).toBe(
      `serve /models/vllm-fp8 --q fp8 --name vllm-fp8 --port 41234 --home \${HOME} | awk '{print $1}'`,
    )
    expect(fillPort(t.url, 41234)).toBe('http://127.0.0.1:41234')
  })

  it('fills {port} and {run} at launch with the values it has, and leaves ${port}, ${run} and the rest', () => {
    const text = 'w-{run} --port {port} ${port} ${run} {gpu}'
    expect(fillRuntime(text, { port: 41234, run: '4242-1-beef' })).toBe(
      'w-4242-1-beef --port 41234 ${port} ${run} {gpu}',
    )
    expect(fillRuntime(text, { run: '4242-1-beef' })).toBe('w-4242-1-beef --port {port} ${port} ${run} {gpu}')
  })

  it('fill {port} too when the target fixes a port', () => {
    const t = plan(withTargets({ 'vllm-{quant}': { ...target, port: 8123 } })).targets[0]
    expect(t.port).toBe(8123)
    expect(t.launch).toContain('--port 8123')
    expect(t.url).toBe('http://127.0.0.1:8123')
    expect(t.env.LOG).toBe('/logs/vllm-fp8-8123.log')
  })

  it('default the url to loopback on the chosen port', () => {
    const t = plan(withTargets({ a: { engine: 'vllm', launch: 'x', port: 9000 }, b: { engine: 'vllm', launch: 'x' } }))
    expect(t.targets.map((x) => x.url)).toEqual(['http://127.0.0.1:9000', 'http://127.0.0.1:{port}'])
  })
})

describe('defaults and per-target overrides', () => {
  it('use the built-in defaults, then the file, then the target', () => {
    const p = plan(
      withTargets(
        {
          plain: { engine: 'vllm', launch: 'x' },
          tuned: {
            engine: 'vllm',
            launch: 'x',
            rounds: 5,
            discard: 2,
            'ready-timeout': '4s',
            api: 'chat',
            'memory-floor': '3%',
            'drop-caches': true,
            'max-error-share': 0,
            'max-rounds': 8,
            'noise-floor': '3%',
            'creep-window': 30,
            bisect: 'auto',
            'bisect-budget': '2h30m',
            'confirm-fresh': true,
            'allow-gpu-processes': ['ollama', '/opt/dcgm/**'],
            'request-body': { chat_template_kwargs: { enable_thinking: false } },
          },
        },
        (c) => (c.defaults = { rounds: 4, 'request-timeout': '1h30m', 'memory-floor': '512MiB' }),
      ),
    )
    expect(byId(p, 'plain').settings).toEqual({
      rounds: 4,
      discard: 1,
      readyTimeoutMs: 1_200_000,
      requestTimeoutMs: 5_400_000,
      api: 'completions',
      confirm: 1,
      confirmFresh: false,
      maxRounds: 4,
      noiseFloor: 0.015,
      creepWindow: 20,
      bisect: { mode: 'off', budgetMs: 4 * 3_600_000 },
      memoryFloor: { kind: 'bytes', value: 512 * 2 ** 20 },
      dropCaches: false,
      maxErrorShare: 0.1,
      passEnv: [],
      allowGpuProcesses: [],
      requestBody: {},
      quality: DEFAULT_PROBE,
      ab: { mode: 'confirm', launches: 2, maxLaunches: 6, budgetMs: 3_600_000 },
    })
    expect(byId(p, 'tuned').settings).toEqual({
      rounds: 5,
      discard: 2,
      readyTimeoutMs: 4000,
      requestTimeoutMs: 5_400_000,
      api: 'chat',
      confirm: 1,
      confirmFresh: true,
      maxRounds: 8,
      noiseFloor: 0.03,
      creepWindow: 30,
      bisect: { mode: 'auto', budgetMs: 2.5 * 3_600_000 },
      memoryFloor: { kind: 'percent', value: 0.03 },
      dropCaches: true,
      maxErrorShare: 0,
      passEnv: [],
      allowGpuProcesses: ['ollama', '/opt/dcgm/**'],
      requestBody: { chat_template_kwargs: { enable_thinking: false } },
      quality: DEFAULT_PROBE,
      ab: { mode: 'confirm', launches: 2, maxLaunches: 6, budgetMs: 3_600_000 },
    })
  })

  it('give the same-box A/B its defaults (confirm, 2 launches, 1h), the file over them and the target over both', () => {
    const ab = (config: Record<string, unknown>) => plan(config).targets.map((t) => [t.id, t.settings.ab] as const)
    const targets = {
      plain: { engine: 'vllm', launch: 'x' },
      tuned: {
        engine: 'vllm',
        launch: 'x',
        ab: 'always',
        'ab-launches': 4,
        'ab-max-launches': 8,
        'ab-budget': '1h30m',
      },
      partial: { engine: 'vllm', launch: 'x', ab: 'off' },
    }
    expect(ab(withTargets(targets))).toEqual([
      ['plain', { mode: 'confirm', launches: 2, maxLaunches: 6, budgetMs: 3_600_000 }],
      ['tuned', { mode: 'always', launches: 4, maxLaunches: 8, budgetMs: 5_400_000 }],
      ['partial', { mode: 'off', launches: 2, maxLaunches: 6, budgetMs: 3_600_000 }],
    ])
    const file = withTargets(targets, (c) => (c.defaults = { ab: 'always', 'ab-launches': 7, 'ab-budget': '20m' }))
    // ab-max-launches follows ab-launches when that is more than its 6.
    expect(ab(file)).toEqual([
      ['plain', { mode: 'always', launches: 7, maxLaunches: 7, budgetMs: 1_200_000 }],
      ['tuned', { mode: 'always', launches: 4, maxLaunches: 8, budgetMs: 5_400_000 }],
      ['partial', { mode: 'off', launches: 7, maxLaunches: 7, budgetMs: 1_200_000 }],
    ])
    const fewer = withTargets({ plain: { ...targets.plain, 'ab-launches': 4, 'ab-max-launches': 3 } })
    expect(() => plan(fewer)).toThrow(/targets\.plain\.ab-max-launches.*ab-max-launches 3 is fewer than ab-launches 4/s)
  })

  it('give requests = concurrency, and open-loop scenarios a concurrency of their request count', () => {
    const config = withTargets({ a: { engine: 'vllm', launch: 'x' } })
    config.scenarios.open = { 'input-tokens': 64, 'output-tokens': 16, rate: 2.5, requests: 20 }
    config.scenarios.single = { 'input-tokens': 64, 'output-tokens': 16 }
    config.scenarios.deep = { 'input-tokens': 64, 'output-tokens': 16, concurrency: 4, requests: 12 }
    const scenarios = plan(config).targets[0].scenarios
    expect(scenarios.map(({ id, concurrency, requests, rate }) => ({ id, concurrency, requests, rate }))).toEqual([
      { id: 'chat-1k', concurrency: 8, requests: 8, rate: undefined },
      { id: 'long-8k', concurrency: 1, requests: 1, rate: undefined },
      { id: 'open', concurrency: 20, requests: 20, rate: 2.5 },
      { id: 'single', concurrency: 1, requests: 1, rate: undefined },
      { id: 'deep', concurrency: 4, requests: 12, rate: undefined },
    ])
  })

  it('keep a target to the scenarios it lists, in its order', () => {
    const t = plan(withTargets({ a: { engine: 'vllm', launch: 'x', scenarios: ['long-8k', 'chat-1k'] } })).targets[0]
    expect(t.scenarios.map((s) => s.id)).toEqual(['long-8k', 'chat-1k'])
  })
})

const DEFAULT_PROBE = { questions: 40, prompts: 12, maxTokens: 32, concurrency: 64 }
/** The built-in limit of a conversation's TTFT per 1,000 added prompt tokens (core/metrics.ts). */
const TTFT_PER_1K = { maxRegression: 0.1, minDelta: 20, stat: 'mean' }

describe('gate', () => {
  const gateOf = (top: unknown, own?: unknown) =>
    plan(
      withTargets(
        { a: { engine: 'vllm', launch: 'x', ...(own ? { gate: own } : {}) } },
        (c) => top !== undefined && (c.gate = top),
      ),
    ).targets[0].gate

  it.each([
    [
      'absent: decode 5%, ttft 10% + 50ms, failed requests 1%, goodput 5 points, TTFT per 1k added 10% + 20ms',
      undefined,
      undefined,
      {
        decode: { maxRegression: 0.05, stat: 'mean' },
        ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
        'failed-requests': { max: 0.01 },
        goodput: { maxDrop: 0.05 },
        'ttft-per-1k-added': TTFT_PER_1K,
      },
    ],
    [
      'present: replaces the default speed limits; the failed-requests ceiling and goodput stay',
      { tpot: { 'max-regression': '3%', stat: 'p90' } },
      undefined,
      { tpot: { maxRegression: 0.03, stat: 'p90' }, 'failed-requests': { max: 0.01 }, goodput: { maxDrop: 0.05 } },
    ],
    [
      'failed-requests: false switches the ceiling off',
      { decode: { 'max-regression': '5%' }, 'failed-requests': false },
      undefined,
      { decode: { maxRegression: 0.05, stat: 'mean' }, goodput: { maxDrop: 0.05 } },
    ],
    [
      'goodput: false switches it off',
      { decode: { 'max-regression': '5%' }, goodput: false },
      undefined,
      { decode: { maxRegression: 0.05, stat: 'mean' }, 'failed-requests': { max: 0.01 } },
    ],
    [
      "a file's own max-drop wins, in points",
      { goodput: { 'max-drop': 2.5 } },
      undefined,
      { goodput: { maxDrop: 0.025 }, 'failed-requests': { max: 0.01 } },
    ],
    [
      "a target's max-drop overrides the top-level one",
      undefined,
      { goodput: { 'max-drop': 10 } },
      {
        decode: { maxRegression: 0.05, stat: 'mean' },
        ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
        'failed-requests': { max: 0.01 },
        goodput: { maxDrop: 0.1 },
        'ttft-per-1k-added': TTFT_PER_1K,
      },
    ],
    [
      "a file's own failed-requests limit wins",
      { 'failed-requests': { max: '5%' } },
      undefined,
      { 'failed-requests': { max: 0.05 }, goodput: { maxDrop: 0.05 } },
    ],
    [
      'target fields merge over the top-level metric',
      undefined,
      { ttft: { 'min-delta': 80, stat: 'p99' } },
      {
        decode: { maxRegression: 0.05, stat: 'mean' },
        ttft: { maxRegression: 0.1, minDelta: 80, stat: 'p99' },
        'failed-requests': { max: 0.01 },
        goodput: { maxDrop: 0.05 },
        'ttft-per-1k-added': TTFT_PER_1K,
      },
    ],
    [
      'target adds a metric',
      undefined,
      { 'output-throughput': { 'max-regression': 0.08, 'min-delta': 5 } },
      {
        decode: { maxRegression: 0.05, stat: 'mean' },
        ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
        'output-throughput': { maxRegression: 0.08, minDelta: 5, stat: 'mean' },
        'failed-requests': { max: 0.01 },
        goodput: { maxDrop: 0.05 },
        'ttft-per-1k-added': TTFT_PER_1K,
      },
    ],
    [
      'false switches a metric off',
      undefined,
      { ttft: false },
      {
        decode: { maxRegression: 0.05, stat: 'mean' },
        'failed-requests': { max: 0.01 },
        goodput: { maxDrop: 0.05 },
        'ttft-per-1k-added': TTFT_PER_1K,
      },
    ],
    [
      'energy is gateable (J/token), never in the built-in gate',
      { energy: { 'max-regression': '10%', 'min-delta': 0.02 } },
      undefined,
      {
        energy: { maxRegression: 0.1, minDelta: 0.02, stat: 'mean' },
        'failed-requests': { max: 0.01 },
        goodput: { maxDrop: 0.05 },
      },
    ],
    [
      'min-delta as a duration',
      { e2e: { 'max-regression': '150%', 'min-delta': '1.5s' } },
      undefined,
      {
        e2e: { maxRegression: 1.5, minDelta: 1500, stat: 'mean' },
        'failed-requests': { max: 0.01 },
        goodput: { maxDrop: 0.05 },
      },
    ],
  ])('%s', (_name, top, own, expected) => {
    // Every gate carries the built-in quality gate unless it is switched off.
    expect(gateOf(top, own)).toEqual({ ...expected, quality: DEFAULT_QUALITY_GATE })
  })

  it.each([
    ['absent: the built-in quality gate', undefined, undefined, DEFAULT_QUALITY_GATE],
    [
      'top-level fields over the built-in ones',
      { quality: { 'max-accuracy-drop': 10 } },
      undefined,
      { ...DEFAULT_QUALITY_GATE, maxAccuracyDrop: 0.1 },
    ],
    [
      "the target's fields over the top-level ones",
      { quality: { 'min-agreement': 0.5 } },
      { quality: { degenerate: 'warn' } },
      { maxAccuracyDrop: 0.05, minAgreement: 0.5, degenerate: 'warn' },
    ],
    ['false at the top switches it off', { quality: false }, undefined, undefined],
    ['false on the target switches it off', undefined, { quality: false }, undefined],
  ])('quality: %s', (_name, top, own, expected) => {
    expect(gateOf(top, own).quality).toEqual(expected)
  })
})

describe('engine-specific keys', () => {
  it('are copied into engineOptions with placeholders filled, and a sim target needs no launch', () => {
    const p = plan(
      withTargets({
        'sim-{quant}': {
          engine: 'sim',
          matrix: { quant: ['fp8'] },
          profile: 'spark-{quant}',
          seed: 7,
          'time-scale': 0.1,
        },
      }),
    )
    expect(p.targets[0]).toMatchObject({
      id: 'sim-fp8',
      engineOptions: { profile: 'spark-fp8', 'time-scale': 0.1, seed: 7 },
      launch: 'node sim.js --port {port} --profile spark-fp8',
      external: false,
    })
  })

  it('keep an explicit launch, and fill a fixed port into the default one', () => {
    const p = plan(
      withTargets({
        own: { engine: 'sim', launch: 'my-sim --port {port}' },
        fixed: { engine: 'sim', port: 8500, profile: 'a' },
      }),
    )
    expect(byId(p, 'own').launch).toBe('my-sim --port {port}')
    expect(byId(p, 'fixed').launch).toBe('node sim.js --port 8500 --profile a')
  })

  describe("parsed with the fields of the target's own engine", () => {
    // Two engines declare `mode` with different fields; `load` converts a duration to ms.
    const engines = [
      {
        name: 'a',
        needsLaunchOrUrl: true,
        options: { mode: z.enum(['fast', 'slow']).optional(), load: duration().optional() },
      },
      { name: 'b', needsLaunchOrUrl: true, options: { mode: z.int().optional() } },
    ] as unknown as EngineAdapter[]
    const build = (targets: Record<string, unknown>) =>
      buildPlan(withTargets(targets), { configPath: 't.yml', resolvedPath: '/t.yml', engines })
    const problems = (targets: Record<string, unknown>) => {
      try {
        build(targets)
      } catch (error) {
        if (error instanceof ConfigError) return error.problems
        throw error
      }
      throw new Error('expected a ConfigError, got a plan')
    }

    it('convert the values, also those filled in from the matrix', () => {
      const p = build({
        a1: { engine: 'a', launch: 'x', mode: 'fast', load: '1.5s' },
        'a-{t}': { engine: 'a', launch: 'x', matrix: { t: [2, 3] }, load: '{t}s' },
        b1: { engine: 'b', launch: 'x', mode: 3 },
      })
      expect(p.targets.map((t) => [t.id, t.engineOptions])).toEqual([
        ['a1', { mode: 'fast', load: 1500 }],
        ['a-2', { load: 2000 }],
        ['a-3', { load: 3000 }],
        ['b1', { mode: 3 }],
      ])
    })

    it.each([
      [
        "a key shared by two engines, against the target engine's field",
        { t: { engine: 'a', launch: 'x', mode: 3 } },
        'targets.t.mode: ',
      ],
      ['the same key on the other engine', { t: { engine: 'b', launch: 'x', mode: 'fast' } }, 'targets.t.mode: '],
      [
        'a key only another engine declares',
        { t: { engine: 'b', launch: 'x', load: '1s' } },
        'targets.t.load: not an option of engine b (load is for a)',
      ],
      [
        'a filled-in value',
        { 'a-{t}': { engine: 'a', launch: 'x', matrix: { t: ['soon'] }, load: '{t}' } },
        'targets.a-{t}.load: "soon" is not a duration',
      ],
      [
        'an unknown placeholder, reported once',
        { t: { engine: 'a', launch: 'x', load: '{gpu}s' } },
        'targets.t.load: unknown placeholder {gpu}',
      ],
    ])('%s', (_name, targets, says) => {
      const got = problems(targets)
      expect(got, got.join('\n')).toHaveLength(1)
      expect(got[0]).toContain(says)
    })

    it("publish every declaring engine's field", () => {
      const target = (matrixJsonSchema(engines) as any).properties.targets.additionalProperties
      expect(target.properties.mode.description).toBe('Engine option (a, b)')
      expect(target.properties.mode.anyOf).toHaveLength(2)
      expect(target.properties.load).toMatchObject({
        type: 'string',
        description: expect.stringMatching(/^Engine option \(a\): A duration/),
      })
    })
  })

  it('mark url-only targets external, and launched ones with a url not', () => {
    const p = plan(
      withTargets({
        ext: { engine: 'openai', url: 'http://127.0.0.1:30000/' },
        both: { engine: 'vllm', url: 'http://127.0.0.1:{port}', launch: 'x' },
      }),
    )
    expect(byId(p, 'ext')).toMatchObject({ external: true, url: 'http://127.0.0.1:30000' })
    expect(byId(p, 'both')).toMatchObject({ external: false, launch: 'x' })
  })
})
