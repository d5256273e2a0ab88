/**
 * GPU telemetry end to end, through the bundled action with the scripted nvidia-smi on PATH and a loopback fake
 * engine streaming on a known schedule (60 tokens at 20 ms: about 1.2 s a round, at least two samples at 2 a
 * second). The scripted GPU draws a constant power, so a round's energy per token is power ÷ output tok/s: the
 * held end samples make the integral exact for a constant, and the 2 % bound is the acceptance's. A PR whose GPU
 * draws 30 % more for the same tokens regresses on `gate.energy`; SIGKILL of the action mid-round leaves no
 * sampler behind (the watchdog ends the group the guard was given).
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import { PR_EVENT, onceStdout, runAction, runPrAction } from '../helpers/action.js'
import { fakeLaunch } from '../engines/fake.js'
import { SMI_DIR } from '../host/smi.js'
import { isGone } from '../server/procs.js'
import type { ResultsFile } from '../../src/core/results.js'

const launch = fakeLaunch('vllm', '--ttft-ms 5 --itl-ms 20')
const CONFIG = [
  'version: 1',
  'defaults: { rounds: 3, discard: 1, ready-timeout: 20s, request-timeout: 30s, confirm: 0, quality: false }',
  'gate:',
  '  decode: { max-regression: 50% }',
  '  energy: { max-regression: 10% }',
  'scenarios:',
  '  chat: { input-tokens: 16, output-tokens: 60, concurrency: 2, requests: 2 }',
  'targets:',
  `  fake: { engine: vllm, launch: ${JSON.stringify(launch)} }`,
  '',
].join('\n')

let cwd: string

async function smiEnv(scenario: string, power = '100.00') {
  const state = await mkdtemp(join(tmpdir(), 'lbg-smi-'))
  const env = {
    PATH: `${SMI_DIR}:${process.env.PATH}`,
    FAKE_SMI_SCENARIO: scenario,
    FAKE_SMI_STATE: state,
    FAKE_SMI_POWER: power,
  }
  return { env, pids: join(state, 'sampler.pids') }
}

const samplerPids = async (file: string) =>
  existsSync(file) ? (await readFile(file, 'utf8')).trim().split('\n').filter(Boolean).map(Number) : []

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-gpu-e2e-'))
  await writeFile(join(cwd, 'bench.yml'), CONFIG)
})

describe('GPU telemetry (bundled action, scripted nvidia-smi)', () => {
  let base: Awaited<ReturnType<typeof runPrAction>>
  beforeAll(async () => {
    const { env } = await smiEnv('ok')
    base = await runPrAction({ cwd, config: 'bench.yml', out: 'base', env })
  }, 120_000)

  it('energy per token in the results is power × time ÷ tokens; the details show the GPU line', () => {
    expect(base.code, base.stdout).toBe(0)
    const steady = base.cell.rounds.filter((r) => r.steady)
    expect(steady).toHaveLength(2)
    // The discarded round is not watched.
    expect(base.cell.rounds[0].gpu).toBeUndefined()
    for (const r of steady) {
      expect(r.gpu!.devices[0].powerW).toEqual({ mean: 100, max: 100 })
      const watts = r.metrics.energy_j_per_token! * r.metrics.output_tps
      expect(Math.abs(watts - 100) / 100).toBeLessThan(0.02)
    }
    expect(base.cell.metrics!.energy_j_per_token).toBeGreaterThan(0)
    expect(base.report).toMatch(
      /- round 1: GPU 0 100 W \(max 100 W\), 1,980 MHz SM, 2,619 MHz mem, 55\.0 °C \(max 55\.0 °C\), 97\.0 % util · [0-9.]+ J\/token/,
    )
  })

  it('a GPU drawing 30 % more for the same tokens regresses on gate.energy', async () => {
    const { env } = await smiEnv('ok', '130.00')
    const pr = await runPrAction({ cwd, config: 'bench.yml', out: 'pr-hot', baseline: 'base/results.json', env })
    expect(pr.cell.verdict.metrics.energy?.status, pr.stdout).toBe('regression')
    // J/token = W ÷ tok/s: the change is the power's (× 1.3) over the token rate's, whatever a loaded machine did to
    // the rate. Each side's steady J/token is a mean of per-round ratios, its tok/s a mean of rates: within 3 %.
    const base = JSON.parse(await readFile(join(cwd, 'base/results.json'), 'utf8')) as ResultsFile
    const expected = (1.3 * base.cells[0].metrics!.output_tps) / pr.cell.metrics!.output_tps - 1
    expect(Math.abs(pr.cell.verdict.metrics.energy!.delta! - expected)).toBeLessThan(0.03)
    expect(pr.cell.verdict.metrics.energy!.reason).toMatch(/^energy per token \+\d+\.?\d*%/)
    expect(pr.code).toBe(1)
  }, 120_000)

  it('[N/A] readings are absent: no power, no energy, and the gate cannot compare it', async () => {
    const { env } = await smiEnv('na-power')
    const pr = await runPrAction({ cwd, config: 'bench.yml', out: 'pr-na', baseline: 'base/results.json', env })
    const device = pr.cell.rounds[1].gpu!.devices[0]
    expect(device).not.toHaveProperty('powerW')
    expect(device).not.toHaveProperty('utilizationPct')
    expect(pr.cell.metrics).not.toHaveProperty('energy_j_per_token')
    expect(pr.cell.verdict.note).toMatch(/energy per token: not measured, cannot compare/)
  }, 120_000)

  it('SIGKILL of the action mid-round leaves no sampler process', async () => {
    const { env, pids } = await smiEnv('ok')
    let killedAt = 0
    const run = await runAction({
      cwd,
      inputs: { config: 'bench.yml', hardware: 'sim-hw', 'results-dir': 'killed', mode: 'run' },
      env,
      event: PR_EVENT,
      timeoutMs: 60_000,
      onSpawn: (child) =>
        // Round 2 is the first steady one: its sampler starts with it.
        onceStdout(child, /fake\/chat: round 1\/3: 2\/2 requests/, async () => {
          for (let i = 0; i < 100 && !(await samplerPids(pids)).length; i++) await delay(20)
          killedAt = Date.now()
          child.kill('SIGKILL')
        }),
    })
    expect(run.code).toBeNull()
    expect(killedAt).toBeGreaterThan(0)
    const started = await samplerPids(pids)
    expect(started.length).toBeGreaterThan(0)
    // The watchdog sees the pipe close and kills the registered groups: bounded poll, 3 s.
    const deadline = Date.now() + 3000
    while (Date.now() < deadline && !started.every(isGone)) await delay(50)
    expect(
      started.filter((pid) => !isGone(pid)),
      'sampler still running 3 s after SIGKILL of the action',
    ).toEqual([])
  }, 90_000)
})
