/**
 * Which GPUs a target's energy and telemetry count, end to end through the bundled action: a scripted box of 2 or 8
 * GPUs (test/helpers/nvidia-smi) with a different constant power per GPU, and a loopback fake engine streaming 60
 * tokens at 20 ms (about 1.2 s a round, at least two samples per GPU at 2 a second). Each GPU draws a constant, so
 * a round's J/token × output tok/s is the counted GPUs' total power: exactly, the end samples being held to the
 * window's edges; the 2 % bound is the telemetry test's.
 *
 * - The target sets CUDA_VISIBLE_DEVICES=1; its neighbour on GPU 0 goes from 60 W to 350 W between the baseline and
 *   the PR. Summed over the box that reads as +181 % (2 GPUs: 160 → 450 W) or +56 % (8 GPUs, the others at 60 W:
 *   520 → 810 W), past twice the 20 % limit; counted over GPU 1 alone, the unchanged engine's energy moves only with
 *   its token rate.
 * - An 8-GPU box serving from GPU 5 with nothing in the environment: the GPU its processes are on is the one
 *   counted, so J/token × tok/s is GPU 5's 100 W, not the box's 450 W.
 * - A CUDA_VISIBLE_DEVICES that names no GPU of the host is an error naming it; nothing is launched.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runPrAction } from '../helpers/action.js'
import { fakeLaunch } from '../engines/fake.js'
import { SMI_DIR } from '../host/smi.js'
import type { ResultsFile } from '../../src/core/results.js'

const launch = fakeLaunch('vllm', '--ttft-ms 5 --itl-ms 20')
const uuid = (index: number) => `GPU-00000000-0000-4000-8000-${String(index).padStart(12, '0')}`

/** One fake-engine target with `env` (a YAML flow map, or none). */
function config(env?: string): string {
  return [
    'version: 1',
    'defaults: { rounds: 3, discard: 1, ready-timeout: 20s, request-timeout: 30s, confirm: 0, quality: false }',
    'gate:',
    '  decode: { max-regression: 50% }',
    '  energy: { max-regression: 20% }',
    'scenarios:',
    '  chat: { input-tokens: 16, output-tokens: 60, concurrency: 2, requests: 2 }',
    'targets:',
    `  fake: { engine: vllm, launch: ${JSON.stringify(launch)}${env ? `, env: ${env}` : ''} }`,
    '',
  ].join('\n')
}

let cwd: string

async function smiEnv(gpus: number, power: string, extra: Record<string, string> = {}) {
  const state = await mkdtemp(join(tmpdir(), 'lbg-smi-'))
  return {
    PATH: `${SMI_DIR}:${process.env.PATH}`,
    FAKE_SMI_STATE: state,
    FAKE_SMI_GPUS: String(gpus),
    FAKE_SMI_POWER: power,
    ...extra,
  }
}

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-gpu-scope-'))
  await writeFile(join(cwd, 'gpu1.yml'), config('{ CUDA_VISIBLE_DEVICES: "1" }'))
  await writeFile(join(cwd, 'unset.yml'), config())
  await writeFile(join(cwd, 'gpu3.yml'), config('{ CUDA_VISIBLE_DEVICES: "3" }'))
})

type Run = Awaited<ReturnType<typeof runPrAction>>

/** Every steady round counted GPU `index` alone, of `of`, and its J/token × tok/s is that GPU's `watts`. */
function expectCounted(run: Run, index: number, of: number, watts: number) {
  const steady = run.cell.rounds.filter((r) => r.steady)
  expect(steady).toHaveLength(2)
  for (const r of steady) {
    expect(r.gpu!.devices.map((d) => d.index)).toEqual([index])
    expect(r.gpu!.counted).toMatchObject({ gpus: [{ index, uuid: uuid(index) }], of })
    const total = r.metrics.energy_j_per_token! * r.metrics.output_tps
    expect(Math.abs(total - watts) / watts, `round ${r.index}: ${total} W`).toBeLessThan(0.02)
  }
  expect(run.cell.host!.counted).toMatchObject({ gpus: [{ index, uuid: uuid(index) }], of })
  expect(run.report).toContain(`energy and telemetry over GPU ${index} of ${of}`)
}

describe('energy and telemetry over the target’s GPUs (bundled action, scripted nvidia-smi)', () => {
  it.each([2, 8])(
    '%i GPUs, CUDA_VISIBLE_DEVICES=1: GPU 0 going 60 → 350 W leaves the unchanged engine’s energy within its limit',
    async (gpus) => {
      const base = await runPrAction({
        cwd,
        config: 'gpu1.yml',
        out: `base-${gpus}`,
        env: await smiEnv(gpus, '60,100,60'),
      })
      expect(base.code, base.stdout).toBe(0)
      expectCounted(base, 1, gpus, 100)
      expect(base.cell.rounds[1].gpu!.counted!.from).toBe("the target's env CUDA_VISIBLE_DEVICES=1")
      expect(base.stdout).toContain(`fake: GPUs counted: GPU 1 of ${gpus} (the target's env CUDA_VISIBLE_DEVICES=1)`)

      const pr = await runPrAction({
        cwd,
        config: 'gpu1.yml',
        out: `pr-${gpus}`,
        baseline: `base-${gpus}/results.json`,
        env: await smiEnv(gpus, '350,100,60'),
      })
      expectCounted(pr, 1, gpus, 100)
      const energy = pr.cell.verdict.metrics.energy!
      expect(energy.status, pr.stdout).not.toBe('regression')
      // GPU 1 drew the same 100 W: the change is the token rate's alone, within 3 % (telemetry test).
      const before = JSON.parse(await readFile(join(cwd, `base-${gpus}/results.json`), 'utf8')) as ResultsFile
      const expected = before.cells[0].metrics!.output_tps / pr.cell.metrics!.output_tps - 1
      expect(Math.abs(energy.delta! - expected)).toBeLessThan(0.03)
      expect(pr.code, pr.stdout).toBe(0)
    },
    240_000,
  )

  it('8 GPUs serving from GPU 5, nothing in the environment: J/token counts the GPU its processes are on', async () => {
    const env = await smiEnv(8, '50,50,50,50,50,100,50', { FAKE_SMI_ENGINE_GPU: '5' })
    const run = await runPrAction({ cwd, config: 'unset.yml', out: 'by-process', env })
    expect(run.code, run.stdout).toBe(0)
    expectCounted(run, 5, 8, 100)
    expect(run.cell.host!.counted!.from).toMatch(/^the target's processes: pid \d+ on GPU 5/)
  }, 120_000)

  it('a CUDA_VISIBLE_DEVICES naming no GPU of the host is an error naming it; nothing is launched', async () => {
    const run = await runPrAction({ cwd, config: 'gpu3.yml', out: 'no-gpu-3', env: await smiEnv(2, '100') })
    expect(run.code, run.stdout).toBe(1)
    expect(run.cell.status).toBe('error')
    expect(run.cell.error).toBe("the target's env CUDA_VISIBLE_DEVICES=3: no GPU 3 among the 2 GPUs of this host")
    expect(run.stdout).not.toMatch(/ready at http/)
  }, 120_000)
})
