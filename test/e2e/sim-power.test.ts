/**
 * A simulated GPU's energy end to end, through the bundled action: a sim profile drawing 50 W idle and 150 W busy,
 * flat 20 ms decode steps, no jitter, a prefill of 1,000,000 tokens a second (16 prompt tokens: 16 µs), one stream
 * at a time. A request of 32 tokens is one prefill step and 31 decode steps: 620 ms busy, 150 W × 0.62 s = 93 J,
 * 2.906 J a token. The round's energy is the simulator's counter over the round, so it is that figure plus 50 W
 * over the simulated time the engine sat idle inside the counter's window: the client's turnaround between
 * requests and the scrapes at the round's ends, a few ms of wall time at time scale 1. The bound allows 2 %: 7.4 J
 * of a round's 372 J, 149 ms of idle at 50 W, some twenty times what loopback turnaround and two scrapes take.
 *
 * The host has a (scripted) GPU drawing 100 W: its sampler runs each round, but the round's record is the
 * simulator's, whose GPU it models. No sampler and no engine process outlives the run.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import { runPrAction } from '../helpers/action.js'
import { SMI_DIR } from '../host/smi.js'
import { isGone, psGroup } from '../server/procs.js'

const OUTPUT = 32
const REQUESTS = 4
const PER_TOKEN_J = (150 * (OUTPUT - 1) * 0.02) / OUTPUT

const PROFILE = JSON.stringify({
  name: 'powered',
  model: 'sim-powered',
  source: 'test profile: flat 20 ms steps, 50 W idle, 150 W busy',
  prefill: { 'tokens-per-s': 1_000_000 },
  decode: { 'step-ms': 20 },
  'power-w': { idle: 50, busy: 150 },
})

const CONFIG = [
  'version: 1',
  'defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 20s, request-timeout: 30s, quality: false }',
  'scenarios:',
  `  chat: { input-tokens: 16, output-tokens: ${OUTPUT}, concurrency: 1, requests: ${REQUESTS} }`,
  'targets:',
  '  powered: { engine: sim, profile: ./powered.json }',
  '',
].join('\n')

let cwd: string
let state: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-sim-power-'))
  state = await mkdtemp(join(tmpdir(), 'lbg-smi-'))
  await writeFile(join(cwd, 'powered.json'), PROFILE)
  await writeFile(join(cwd, 'bench.yml'), CONFIG)
})

const samplerPids = async () => {
  const file = join(state, 'sampler.pids')
  return existsSync(file) ? (await readFile(file, 'utf8')).trim().split('\n').filter(Boolean).map(Number) : []
}

describe('simulated GPU energy (bundled action, sim profile with power-w)', () => {
  it('every steady round has the profile’s energy; J/token is its energy over the output tokens', async () => {
    const env = { PATH: `${SMI_DIR}:${process.env.PATH}`, FAKE_SMI_STATE: state, FAKE_SMI_POWER: '100.00' }
    const run = await runPrAction({ cwd, config: 'bench.yml', out: 'out', env })
    expect(run.code, run.stdout).toBe(0)
    const steady = run.cell.rounds.filter((r) => r.steady)
    expect(steady).toHaveLength(2)
    for (const r of steady) {
      expect(r.errors).toBe(0)
      expect(r.achieved.outputTokens).toEqual({ min: OUTPUT, max: OUTPUT })
      const tokens = r.requests * OUTPUT
      const energyJ = r.gpu!.energyJ!
      expect(r.metrics.energy_j_per_token).toBeCloseTo(energyJ / tokens, 9)
      expect(energyJ / tokens).toBeGreaterThanOrEqual(PER_TOKEN_J * (1 - 1e-6))
      expect(energyJ / tokens, `round ${r.index}: ${energyJ} J`).toBeLessThan(PER_TOKEN_J * 1.02)
      console.log(`round ${r.index}: ${energyJ.toFixed(2)} J, ${(energyJ / tokens).toFixed(4)} J/token`)
      // The simulator's draw while its steps run, not the host GPU's 100 W.
      for (const d of r.gpu!.devices) expect(d.powerW!.max).toBe(150)
    }
    expect(run.cell.metrics!.energy_j_per_token).toBeGreaterThan(PER_TOKEN_J * (1 - 1e-6))
    expect(run.report).toMatch(/- round 1: (GPU 0 1\d\d W \(max 150 W\) · )?2\.9\d J\/token/)

    // The host's sampler ran around each steady round and is gone; so is the simulator's process group.
    const samplers = await samplerPids()
    expect(samplers.length).toBeGreaterThanOrEqual(2)
    const pgids = JSON.parse(run.state.pgids ?? '[]') as number[]
    expect(pgids).toHaveLength(1)
    const deadline = Date.now() + 2000
    while (Date.now() < deadline && (!samplers.every(isGone) || psGroup(pgids[0]).length)) await delay(50)
    expect(samplers.filter((pid) => !isGone(pid))).toEqual([])
    expect(psGroup(pgids[0])).toEqual([])
  }, 60_000)
})
