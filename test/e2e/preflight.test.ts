/**
 * Host preflight end to end, through the bundled action with a scripted nvidia-smi on PATH and the
 * simulated engine: a stray GPU process makes the cell an `error` that fails the step through
 * fail-on-error, never a regression; a round the GPU slowed down during is measured again and the
 * report says so, next to the driver that changed since the baseline; no nvidia-smi is recorded.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runPrAction } from '../helpers/action.js'
import { shareOff, WAKE_MS } from '../helpers/load.js'
import { SMI_DIR } from '../host/smi.js'

/**
 * These runs are about the preflight, not speed, so the decode limit is one a loaded runner cannot trip. A request's
 * decode is read over its 16 tokens' 15 gaps: the profile's 9.44 ms step for two streams at time-scale 0.25, a
 * 566 ms window, whose end stamps may each be late by two wake-ups (the simulator's write, then the client's read):
 * up to 21.5 % off, on either side. Twice that keeps the same speed a pass however busy the runner.
 */
const TIME_SCALE = 0.25
const DECODE_LIMIT = Math.ceil(200 * shareOff((15 * 9.44) / TIME_SCALE, 2 * WAKE_MS))

let cwd: string
const UUID_0 = 'GPU-00000000-0000-4000-8000-000000000000'

const CONFIG = [
  'version: 1',
  'defaults: { rounds: 2, discard: 1, ready-timeout: 20s, request-timeout: 30s, confirm: 1, quality: false }',
  'gate:',
  `  decode: { max-regression: ${DECODE_LIMIT}% }`,
  'scenarios:',
  '  chat: { input-tokens: 32, output-tokens: 16, concurrency: 2 }',
  'targets:',
  `  small: { engine: sim, profile: vllm-qwen35-08b, time-scale: ${TIME_SCALE}, load-time: 0ms, seed: 3 }`,
  '',
].join('\n')

/** One action run on a pull request with the scripted nvidia-smi in `scenario` (none on PATH when undefined). */
async function run(
  out: string,
  scenario: string | undefined,
  o: { baseline?: string; env?: Record<string, string>; inputs?: Record<string, string>; config?: string } = {},
) {
  const state = await mkdtemp(join(tmpdir(), 'lbg-smi-'))
  const env: Record<string, string> = scenario
    ? { PATH: `${SMI_DIR}:${process.env.PATH}`, FAKE_SMI_SCENARIO: scenario, FAKE_SMI_STATE: state, ...o.env }
    : { PATH: '/usr/local/bin:/usr/bin:/bin', ...o.env }
  return runPrAction({ cwd, config: o.config ?? 'bench.yml', out, baseline: o.baseline, env, inputs: o.inputs })
}

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-preflight-'))
  await writeFile(join(cwd, 'bench.yml'), CONFIG)
  // The same matrix on a box where a python process is expected to hold the GPU.
  await writeFile(
    join(cwd, 'allowed.yml'),
    CONFIG.replace('quality: false }', 'quality: false, allow-gpu-processes: [python*] }'),
  )
  // The same target on GPU 1, and on GPU 0, of a 2-GPU box.
  for (const gpu of [0, 1])
    await writeFile(
      join(cwd, `gpu${gpu}.yml`),
      CONFIG.replace('seed: 3 }', `seed: 3, env: { CUDA_VISIBLE_DEVICES: "${gpu}" } }`),
    )
})

describe('host preflight', () => {
  let base: Awaited<ReturnType<typeof run>>
  beforeAll(async () => {
    base = await run('base', 'ok')
  }, 120_000)

  it('a quiet box: the preflight and the fingerprint are recorded and shown', () => {
    expect(base.code, base.stdout).toBe(0)
    expect(base.cell.status).toBe('ok')
    expect(base.cell.host!.preflight).toMatchObject({
      cuda: '13.0',
      processes: [],
      gpus: [{ name: 'NVIDIA GB10', driver: '580.95.05', active: [] }],
    })
    expect(base.cell.host!.fingerprint).toMatchObject({ driver: '580.95.05', cuda: '13.0' })
    expect(base.cell.host!.fingerprint.engine).toBeTruthy()
    expect(base.report).toContain('GPU 0 NVIDIA GB10: SM 2405/3003 MHz, 41 °C, 11.52 W, no slowdown')
    expect(base.stdout).toMatch(/small: preflight: GPU 0 NVIDIA GB10 2405\/3003 MHz/)
  })

  it('a stray GPU process: the cell is an error naming it, the step fails through fail-on-error, not as a regression', async () => {
    const pr = await run('pr-stray', 'stray', { baseline: 'base/results.json' })
    expect(pr.code, pr.stdout).toBe(1)
    expect(pr.cell.status).toBe('error')
    expect(pr.cell.error).toBe('GPU busy: pid 4242 python (not started by this run)')
    expect(pr.cell.verdict.status).toBe('error')
    expect(pr.results.summary).toMatchObject({ verdict: 'error', regressions: 0 })
    expect(pr.cell.host!.preflight.processes).toEqual([
      { pid: 4242, name: 'python', usedMemoryMiB: 1024, ours: false, gpu: 0, gpuUuid: UUID_0 },
    ])
    expect(pr.report).toContain('GPU busy: pid 4242 python (not started by this run)')
    expect(pr.stdout).toContain('1 cell(s) could not be measured')
    expect(pr.stdout).not.toContain('regressed')
    // Nothing was launched.
    expect(pr.stdout).not.toMatch(/ready at http/)

    const tolerated = await run('pr-stray-tolerated', 'stray', {
      baseline: 'base/results.json',
      inputs: { 'fail-on-error': 'false' },
    })
    expect(tolerated.code, tolerated.stdout).toBe(0)
    expect(tolerated.cell.verdict.status).toBe('error')
  }, 240_000)

  it('a process on GPU 0 does not stop a target on GPU 1 (it is listed); it stops one on GPU 0', async () => {
    const env = { FAKE_SMI_GPUS: '2' }
    const other = await run('pr-gpu1', 'stray', { baseline: 'base/results.json', config: 'gpu1.yml', env })
    expect(other.code, other.stdout).toBe(0)
    expect(other.cell.status).toBe('ok')
    expect(other.cell.host!.preflight.processes).toEqual([
      { pid: 4242, name: 'python', usedMemoryMiB: 1024, ours: false, gpu: 0, gpuUuid: UUID_0, outside: true },
    ])
    expect(other.stdout).toContain(
      "small: preflight: GPU process pid 4242 python on GPU 0 is not on this target's GPUs (GPU 1 of 2); not counted against it",
    )
    expect(other.report).toContain('pid 4242 python on GPU 0 (not this target’s GPU)')

    const same = await run('pr-gpu0', 'stray', { baseline: 'base/results.json', config: 'gpu0.yml', env })
    expect(same.code, same.stdout).toBe(1)
    expect(same.cell.status).toBe('error')
    expect(same.cell.error).toBe('GPU busy: pid 4242 python on GPU 0 (not started by this run)')
    expect(same.stdout).not.toMatch(/ready at http/)
  }, 240_000)

  it('a GPU process the matrix allows: recorded and named, the target is measured', async () => {
    const pr = await run('pr-allowed', 'stray', { baseline: 'base/results.json', config: 'allowed.yml' })
    expect(pr.code, pr.stdout).toBe(0)
    expect(pr.cell.status).toBe('ok')
    expect(pr.cell.host!.preflight.processes).toEqual([
      { pid: 4242, name: 'python', usedMemoryMiB: 1024, ours: false, allowed: true, gpu: 0, gpuUuid: UUID_0 },
    ])
    expect(pr.stdout).toContain(
      'small: preflight: GPU process pid 4242 python is allowed by allow-gpu-processes; it shares the GPU with the engine',
    )
    expect(pr.report).toContain('pid 4242 python (allowed)')
  }, 120_000)

  it('a box already throttled before launch is an error naming the reason', async () => {
    const pr = await run('pr-throttled', 'throttled', { baseline: 'base/results.json' })
    expect(pr.code, pr.stdout).toBe(1)
    expect(pr.cell.error).toBe('GPU throttled before launch: GPU 0 sw_thermal_slowdown')
    expect(pr.results.summary!.regressions).toBe(0)
  }, 120_000)

  it('throttling during a round: the round is measured again and the report says so, next to the driver that changed', async () => {
    const pr = await run('pr-throttle-once', 'throttle-once', {
      baseline: 'base/results.json',
      env: { FAKE_SMI_DRIVER: '590.10' },
    })
    expect(pr.code, pr.stdout).toBe(0)
    expect(pr.cell.status).toBe('ok')
    expect(pr.cell.verdict.status).not.toBe('regression')
    expect(pr.cell.flags).toEqual([])
    expect(pr.cell.host!.remeasured).toEqual([{ round: 1, reason: 'GPU 0 sw_thermal_slowdown +1.2s' }])
    expect(pr.cell.rounds.map((r) => r.index)).toEqual([0, 1])
    expect(pr.stdout).toContain(
      'small/chat: round 2 disturbed (GPU 0 sw_thermal_slowdown +1.2s); measuring it again (1/2)',
    )
    // The report escapes markdown: underscores come out as \_.
    expect(pr.report).toContain('round 2 measured again: GPU 0 sw\\_thermal\\_slowdown +1.2s')
    expect(pr.cell.host!.changes).toEqual(['driver 580.95.05 → 590.10'])
    expect(pr.report).toContain('environment changed: driver 580.95.05 → 590.10')
  }, 120_000)

  it('without nvidia-smi on PATH: no GPU information is recorded and the run measures as usual', async () => {
    const pr = await run('no-smi', undefined)
    expect(pr.code, pr.stdout).toBe(0)
    expect(pr.cell.status).toBe('ok')
    expect(pr.cell.host!.preflight.noGpu).toBe('no GPU information: nvidia-smi not found')
    expect(pr.report).toContain('no GPU information: nvidia-smi not found')
  }, 120_000)
})
