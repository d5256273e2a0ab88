/**
 * GPU telemetry through the real measure path: the bench client against a loopback server on a known schedule,
 * the target's round watch with the scripted nvidia-smi (test/helpers/nvidia-smi) as its sampler, and a guard
 * that records what it is handed. The scripted GPU draws a constant 100 W, so the energy of a round is
 * 100 W × its duration: with the end samples held to the window's edges the integral is exact for a constant,
 * whatever the samples' phase, so J/token × output tok/s must be 100 W up to float error; the 2 % bound is the
 * acceptance's and leaves room for nothing else.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient } from '../../src/bench/measure.js'
import type { HostState } from '../../src/core/host.js'
import type { ScenarioPlan } from '../../src/core/plan.js'
import type { CleanupTask, RunGuard } from '../../src/server/index.js'
import { roundWatch } from '../../src/target-run/host-check.js'
import { startScheduledServer } from '../../harness/scheduled-server.js'
import { plainAdapter } from '../bench/adapter.js'
import { SMI_DIR, scriptedSmi } from '../host/smi.js'
import { isGone } from '../server/procs.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

const STATE: HostState = { gpus: [{ name: 'NVIDIA GB10', active: [] }] }

function recordingGuard() {
  const events: string[] = []
  const guard: RunGuard = {
    runId: 'test',
    register: (t: CleanupTask) => void events.push(`register ${t.kind}`),
    forget: (t: CleanupTask) => void events.push(`forget ${t.kind}`),
    close: async () => undefined,
  }
  return { guard, events }
}

/** `rounds` steady rounds of 2 requests × `tokens` tokens at 20 ms a token, watched with the scripted GPU in `scenario`. */
async function measure(scenario: string, tokens: number, rounds = 2) {
  const state = await mkdtemp(join(tmpdir(), 'lbg-gpu-'))
  const server = await startScheduledServer({ ttftMs: 5, intervalMs: 20 })
  closers.push(() => server.close())
  const client = createBenchClient({
    baseUrl: server.url,
    adapter: plainAdapter,
    model: 'm',
    api: 'completions',
    requestTimeoutMs: 20_000,
    maxConcurrency: 2,
  })
  closers.push(() => client.close())
  const { guard, events } = recordingGuard()
  const env = ['env', `FAKE_SMI_SCENARIO=${scenario}`, `FAKE_SMI_STATE=${state}`, join(SMI_DIR, 'nvidia-smi')] as const
  const watch = roundWatch(STATE, { smi: scriptedSmi('ok'), guard, samplerCommand: env })
  const scenarioPlan: ScenarioPlan = { id: 's', inputTokens: 16, outputTokens: tokens, concurrency: 2, requests: 2 }
  const m = await client.measure({ scenario: scenarioPlan, rounds, discard: 0, maxErrorShare: 0, seed: 1, watch })
  const pids = (await readFile(join(state, 'sampler.pids'), 'utf8')).trim().split('\n').map(Number)
  return { m, events, pids }
}

describe('GPU telemetry per round (scripted nvidia-smi, loopback server)', () => {
  it('energy per token is power × time ÷ tokens; every sampler is registered, forgotten and gone', async () => {
    const { m, events, pids } = await measure('ok', 60)
    for (const r of m.rounds) {
      // 60 tokens at 20 ms: about 1.2 s a round, so at least two samples at 2 a second.
      expect(r.gpu!.devices[0].samples).toBeGreaterThanOrEqual(2)
      expect(r.gpu!.devices[0]).toMatchObject({ index: 0, powerW: { mean: 100, max: 100 }, smClockMhz: { mean: 1980 } })
      expect(r.gpu!.energyJ).toBeCloseTo((100 * r.durationMs) / 1000, 6)
      expect(r.metrics.energy_j_per_token! * r.metrics.output_tps).toBeGreaterThan(98)
      expect(r.metrics.energy_j_per_token! * r.metrics.output_tps).toBeLessThan(102)
    }
    expect(m.metrics!.energy_j_per_token! * m.metrics!.output_tps).toBeCloseTo(100, 0)
    expect(events).toEqual(['register group', 'forget group', 'register group', 'forget group'])
    expect(pids).toHaveLength(2)
    expect(pids.every(isGone)).toBe(true)
  }, 30_000)

  it('[N/A] and [Not Supported] readings are absent, never 0; without power there is no energy', async () => {
    const { m } = await measure('na-power', 60, 1)
    const device = m.rounds[0].gpu!.devices[0]
    expect(device).not.toHaveProperty('powerW')
    expect(device).not.toHaveProperty('utilizationPct')
    expect(device.smClockMhz).toEqual({ mean: 1980, max: 1980 })
    expect(m.rounds[0].gpu).not.toHaveProperty('energyJ')
    expect(m.rounds[0].metrics).not.toHaveProperty('energy_j_per_token')
    expect(m.metrics).not.toHaveProperty('energy_j_per_token')
  }, 30_000)

  it('an SM clock that drops mid-round disturbs the round: it is measured again', async () => {
    // 150 tokens: about 3 s a round, rows 1–5 inside it, rows 3 and 4 of the first loop at 1200 MHz.
    const { m } = await measure('clock-drop-once', 150, 1)
    expect(m.remeasured).toHaveLength(1)
    expect(m.remeasured![0].reason).toMatch(
      /^GPU 0 SM clock down to 1200 MHz for 2 samples .* under 90 % of its round median 1980 MHz$/,
    )
    expect(m.rounds).toHaveLength(1)
    expect(m.rounds[0].gpu!.clockDrop).toBeUndefined()
    expect(m.flags.some((f) => f.startsWith('throttled'))).toBe(false)
  }, 40_000)
})
