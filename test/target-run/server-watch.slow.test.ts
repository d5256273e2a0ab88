/**
 * Server counters per round through the real round loop: the bench client against the fake vLLM engine, which
 * counts one preemption every 2nd generation request, so a round of 4 requests moves the counter by exactly 2.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createBenchClient } from '../../src/bench/measure.js'
import type { ScenarioPlan } from '../../src/core/plan.js'
import type { RoundWatch } from '../../src/core/telemetry.js'
import { sumByName } from '../../src/engines/prometheus.js'
import { LLAMACPP_SERIES, SGLANG_SERIES, SIM_SERIES, VLLM_SERIES } from '../../src/engines/server-series.js'
import { vllm } from '../../src/engines/vllm.js'
import { llamacpp } from '../../src/engines/llamacpp.js'
import { sglang } from '../../src/engines/sglang.js'
import { sim, simRoundGpu } from '../../src/engines/sim.js'
import { startSimServer } from '../../src/sim/index.js'
import { profileFiles } from '../sim/profile-file.js'
import { trtllm } from '../../src/engines/trtllm.js'
import { combineWatches, roundServer, serverWatch } from '../../src/target-run/server-watch.js'
import { bundledScrapeWorker, startRoundScrape } from '../../src/target-run/round-scrape.js'
import { ROOT } from '../helpers/root.js'
import { runFake } from '../engines/fake.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

const SCENARIO: ScenarioPlan = { id: 's', inputTokens: 16, outputTokens: 60, concurrency: 2, requests: 4 }

describe('engine series tables', () => {
  it('vLLM-dialect adapters read the same series; counters are exposed with _total, gauges without', () => {
    expect(vllm.serverSeries).toBe(VLLM_SERIES)
    // The simulator serves vLLM's series and its simulated GPU's energy counter and power gauge.
    expect(sim.serverSeries).toBe(SIM_SERIES)
    expect(SIM_SERIES.counters).toEqual([...VLLM_SERIES.counters, 'sim:gpu_energy_joules_total'])
    expect(SIM_SERIES.gauges).toEqual([...VLLM_SERIES.gauges, 'sim:gpu_power_watts'])
    expect(SIM_SERIES.ratios).toBe(VLLM_SERIES.ratios)
    // Those two make the round's GPU record.
    expect(SIM_SERIES.gpu).toEqual(['sim:gpu_energy_joules_total', 'sim:gpu_power_watts'])
    expect(VLLM_SERIES.gpu).toBeUndefined()
    expect(sglang.serverSeries).toBe(SGLANG_SERIES)
    expect(llamacpp.serverSeries).toBe(LLAMACPP_SERIES)
    expect(trtllm.serverSeries).toBeUndefined()
    for (const s of [VLLM_SERIES, SIM_SERIES, LLAMACPP_SERIES]) {
      expect(s.counters.every((n) => n.endsWith('_total'))).toBe(true)
      expect(s.gauges.some((n) => n.endsWith('_total'))).toBe(false)
      for (const [num, den] of Object.values(s.ratios ?? {}))
        expect(s.counters).toEqual(expect.arrayContaining([num, den]))
    }
    expect(VLLM_SERIES.counters).toContain('vllm:num_preemptions_total')
  })

  it('llama.cpp b10470 exposes every series of its table: two draft-model completions, fresh server', () => {
    // `/metrics` of llama-server b10470 (`--metrics`, draft model, `--spec-draft-n-max 8`), the comment lines
    // left out, after two streamed 32-token completions with `cache_prompt: false` (timings: draft_n 132 + 180,
    // draft_n_accepted 10 + 4); a fresh server reads 0 on every series.
    const after = [
      'llamacpp:prompt_tokens_total 25',
      'llamacpp:prompt_tokens_cached_total 0',
      'llamacpp:prompt_seconds_total 0.032899',
      'llamacpp:tokens_predicted_total 64',
      'llamacpp:tokens_predicted_seconds_total 1.49688',
      'llamacpp:n_decode_total 50',
      'llamacpp:n_tokens_max 46',
      'llamacpp:spec_decode_num_draft_tokens_total 312',
      'llamacpp:spec_decode_num_accepted_tokens_total 14',
      'llamacpp:spec_decode_num_drafts_total 46',
      'llamacpp:prompt_tokens_seconds 759.902',
      'llamacpp:predicted_tokens_seconds 41.4196',
      'llamacpp:requests_processing 0',
      'llamacpp:requests_deferred 0',
      'llamacpp:n_busy_slots_per_decode 1',
      'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 3',
      'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="1"} 3',
    ].join('\n')
    const fresh = after.replace(/ [0-9.]+$/gm, ' 0')
    const names = [...LLAMACPP_SERIES.counters, ...LLAMACPP_SERIES.gauges]
    const server = roundServer(LLAMACPP_SERIES, sumByName(fresh, names), sumByName(after, names), [])
    expect(Object.keys(server.deltas).sort()).toEqual([...LLAMACPP_SERIES.counters].sort())
    expect(server.deltas).toMatchObject({
      'llamacpp:prompt_tokens_total': 25,
      'llamacpp:prompt_tokens_cached_total': 0,
      'llamacpp:tokens_predicted_total': 64,
      'llamacpp:n_decode_total': 50,
      'llamacpp:spec_decode_num_drafts_total': 46,
      'llamacpp:spec_decode_num_draft_tokens_total': 312,
      'llamacpp:spec_decode_num_accepted_tokens_total': 14,
    })
    expect(server.rates?.spec_acceptance_rate).toBe(14 / 312)
    expect(server.rates?.predicted_tokens_per_second).toBe(64 / 1.49688)
  })

  it('deltas, gauge peak and mean, and the hit rate from deltas; a counter that went down is left out', () => {
    const before = {
      'vllm:prefix_cache_queries_total': 100,
      'vllm:prefix_cache_hits_total': 10,
      'vllm:num_preemptions_total': 9,
    }
    const after = {
      'vllm:prefix_cache_queries_total': 300,
      'vllm:prefix_cache_hits_total': 194,
      'vllm:num_preemptions_total': 0,
    }
    const samples: Record<string, number>[] = [
      { 'vllm:num_requests_waiting': 1 },
      { 'vllm:num_requests_waiting': 5 },
      {},
    ]
    expect(roundServer(VLLM_SERIES, before, after, samples)).toEqual({
      deltas: { 'vllm:prefix_cache_queries_total': 200, 'vllm:prefix_cache_hits_total': 184 },
      peaks: { 'vllm:num_requests_waiting': 5 },
      means: { 'vllm:num_requests_waiting': 3 },
      rates: { prefix_cache_hit_rate: 0.92 },
      samples: 3,
    })
  })
})

describe('what a round records of readings that cannot be', () => {
  const V = {
    queries: 'vllm:prefix_cache_queries_total',
    hits: 'vllm:prefix_cache_hits_total',
    preemptions: 'vllm:num_preemptions_total',
    finished: 'vllm:request_success_total',
    draftTokens: 'vllm:spec_decode_num_draft_tokens_total',
    accepted: 'vllm:spec_decode_num_accepted_tokens_total',
    running: 'vllm:num_requests_running',
    waiting: 'vllm:num_requests_waiting',
    kv: 'vllm:kv_cache_usage_perc',
  }

  it('a negative or non-finite gauge sample is missing and a share clamped; no negative delta, no infinite rate', () => {
    const before = {
      [V.queries]: 0,
      [V.hits]: 0,
      [V.preemptions]: 9,
      [V.finished]: -4,
      [V.draftTokens]: 0,
      [V.accepted]: 0,
    }
    // Hits a thousand times the queries; the preemption counter reset by a restart; a denormal draft count.
    const after = {
      [V.queries]: 100,
      [V.hits]: 100_000,
      [V.preemptions]: 3,
      [V.finished]: 4,
      [V.draftTokens]: 5e-324,
      [V.accepted]: 10,
    }
    const samples = [
      { [V.running]: -7, [V.kv]: 1.7, [V.waiting]: 2 },
      { [V.running]: 3, [V.kv]: 0.5, [V.waiting]: 1.7e308 },
      { [V.running]: Number.NaN, [V.kv]: -0.1, [V.waiting]: 1.7e308 },
    ]
    const server = roundServer(VLLM_SERIES, before, after, samples)
    expect(server.deltas).toEqual({ [V.queries]: 100, [V.hits]: 100_000, [V.draftTokens]: 5e-324, [V.accepted]: 10 })
    expect(server.rates).toEqual({ prefix_cache_hit_rate: 1 })
    expect(server.peaks).toEqual({ [V.running]: 3, [V.kv]: 1, [V.waiting]: 1.7e308 })
    expect(server.means[V.running]).toBe(3)
    expect(server.means[V.kv]).toBeCloseTo(0.75, 12)
    // Three samples near the largest double average to one, not to Infinity.
    expect(server.means[V.waiting]).toBeGreaterThan(1.1e308)
    expect(Number.isFinite(server.means[V.waiting])).toBe(true)
  })
})

describe("the round's scrapes in the bundled worker thread", () => {
  const WORKER = join(ROOT, 'dist', 'scrape-worker', 'index.js')

  it('reads before, samples during and reads after in the worker; a script that cannot start falls back here', async () => {
    // The action's bundle and the CLI's find the worker next to themselves.
    expect(bundledScrapeWorker(join(ROOT, 'dist', 'index.js'))).toBe(WORKER)
    expect(bundledScrapeWorker(join(ROOT, 'dist', 'cli', 'index.js'))).toBe(WORKER)
    const fake = await runFake('vllm', ['--preempt-every', '1'])
    closers.push(() => fake.stop())
    const spec = {
      url: `${fake.baseUrl}/metrics`,
      names: [...VLLM_SERIES.counters, ...VLLM_SERIES.gauges],
      sampleMs: 50,
      timeoutMs: 2000,
      maxBytes: 1 << 20,
    }
    for (const script of [WORKER, join(ROOT, 'no-such-worker.js')]) {
      const scrape = await startRoundScrape(spec, script)
      await fetch(`${fake.baseUrl}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'a b', max_tokens: 2 }),
      }).then((r) => r.text())
      await new Promise((r) => setTimeout(r, 300))
      const readings = await scrape.stop()
      expect(readings.samples.length).toBeGreaterThanOrEqual(2)
      const server = roundServer(VLLM_SERIES, readings.before!, readings.after!, readings.samples)
      expect(server.deltas).toEqual({ 'vllm:num_preemptions_total': 1, 'vllm:request_success_total': 1 })
      expect(readings.cutAt).toBeUndefined()
    }
  }, 30_000)

  it('says where it stopped reading a body past the cap', async () => {
    const fake = await runFake('vllm', ['--metrics-pad-bytes', String(1 << 20)])
    closers.push(() => fake.stop())
    const spec = {
      url: `${fake.baseUrl}/metrics`,
      names: [...VLLM_SERIES.counters],
      sampleMs: 1000,
      timeoutMs: 2000,
      maxBytes: 64 * 1024,
    }
    const readings = await (await startRoundScrape(spec, WORKER)).stop()
    expect(readings.cutAt).toBe(64 * 1024)
    // Served before the padding: read; after it: not.
    expect(readings.after).toEqual({ 'vllm:request_success_total': 0 })
  }, 30_000)
})

describe('server counters per round (fake vLLM engine, real round loop)', () => {
  async function measure(args: string[], watch: RoundWatch | undefined, rounds = 2) {
    const fake = await runFake('vllm', ['--ttft-ms', '5', '--itl-ms', '20', ...args])
    closers.push(() => fake.stop())
    const client = createBenchClient({
      baseUrl: fake.baseUrl,
      adapter: vllm,
      model: undefined,
      api: 'completions',
      requestTimeoutMs: 20_000,
      maxConcurrency: 2,
    })
    closers.push(() => client.close())
    const w = combineWatches(watch, serverWatch(vllm, fake.baseUrl))
    return client.measure({ scenario: SCENARIO, rounds, discard: 0, maxErrorShare: 0, seed: 1, watch: w })
  }

  it('each round records its own counter deltas and samples the gauges during it', async () => {
    const m = await measure(['--preempt-every', '2'], undefined)
    expect(m.rounds).toHaveLength(2)
    for (const r of m.rounds) {
      expect(r.server!.deltas).toEqual({ 'vllm:num_preemptions_total': 2, 'vllm:request_success_total': 4 })
      // 60 tokens at 20 ms: a round of about 1.2 s holds at least one sample at 500 ms.
      expect(r.server!.samples).toBeGreaterThanOrEqual(1)
      expect(r.server!.peaks).toEqual({ 'vllm:num_requests_running': 0 })
    }
  }, 30_000)

  it('a GPU watch alongside keeps its verdict and record; the server record is added', async () => {
    let calls = 0
    const gpuWatch: RoundWatch = async () => async () =>
      calls++ === 0 ? { disturbed: 'scripted slowdown' } : { gpu: { devices: [] } }
    const m = await measure([], gpuWatch, 1)
    expect(m.remeasured).toEqual([{ round: 0, reason: 'scripted slowdown' }])
    expect(m.rounds[0].gpu).toEqual({ devices: [] })
    expect(m.rounds[0].server!.deltas).toEqual({ 'vllm:num_preemptions_total': 0, 'vllm:request_success_total': 4 })
  }, 30_000)

  it('an engine without a metrics endpoint records nothing', async () => {
    expect(serverWatch(trtllm, 'http://127.0.0.1:1')).toBeUndefined()
    const watch = serverWatch(vllm, 'http://127.0.0.1:1', { timeoutMs: 500 })
    const end = await watch!()
    expect(await end({ startMs: 0, endMs: 0 })).toEqual({})
  })
})

describe('the simulated GPU (engine: sim with power-w): its own GPU record per round', () => {
  const profileFile = profileFiles('server-watch-')

  it('one device from the power gauge, the energy from the counter; nothing for a profile without power', () => {
    const deltas = { 'sim:gpu_energy_joules_total': 93.5, 'vllm:request_success_total': 4 }
    const peaks = { 'sim:gpu_power_watts': 150, 'vllm:num_requests_running': 1 }
    const means = { 'sim:gpu_power_watts': 125, 'vllm:num_requests_running': 1 }
    expect(simRoundGpu({ deltas, peaks, means, samples: 4 })).toEqual({
      devices: [{ index: 0, samples: 4, powerW: { mean: 125, max: 150 } }],
      energyJ: 93.5,
    })
    // A round too short for a gauge sample still has its energy.
    expect(simRoundGpu({ deltas, peaks: {}, means: {}, samples: 0 })).toEqual({ devices: [], energyJ: 93.5 })
    expect(simRoundGpu({ deltas: { 'vllm:request_success_total': 4 }, peaks: {}, means: {}, samples: 2 })).toBe(
      undefined,
    )
  })

  /**
   * Real round loop against the simulator in this process: 20 ms steps at 50 W idle / 150 W busy, one stream of 24
   * tokens per request (23 decode steps, the prefill 16 tokens at 1,000,000/s is 16 µs): 150 W × 0.46 s = 69 J a
   * request, 2.875 J a token, plus 50 W over the idle moments in the counter's window (the client's turnaround and
   * the scrapes; at time scale 1 a few ms, well under the 2 % allowed: 2 % of 69 J is 28 ms at 50 W a request).
   */
  it('the engine record wins over a host GPU record; J/token is its energy over the tokens; server keeps the rest', async () => {
    const path = profileFile('powered', {
      prefill: { 'tokens-per-s': 1_000_000 },
      'power-w': { idle: 50, busy: 150 },
    })
    const server = await startSimServer({ profile: path, port: 0 })
    closers.push(() => server.close())
    const baseUrl = `http://127.0.0.1:${server.port}`
    const client = createBenchClient({
      baseUrl,
      adapter: sim,
      model: undefined,
      api: 'completions',
      requestTimeoutMs: 20_000,
      maxConcurrency: 1,
    })
    closers.push(() => client.close())
    const host: RoundWatch = async () => async () => ({ gpu: { devices: [], energyJ: 1 } })
    const scenario = { id: 's', inputTokens: 16, outputTokens: 24, concurrency: 1, requests: 3 }
    const watch = combineWatches(host, serverWatch(sim, baseUrl))
    const m = await client.measure({ scenario, rounds: 1, discard: 0, maxErrorShare: 0, seed: 1, watch })
    const [round] = m.rounds
    const perToken = (150 * 23 * 0.02) / 24
    expect(round.gpu!.energyJ! / 72).toBeGreaterThanOrEqual(perToken * (1 - 1e-6))
    expect(round.gpu!.energyJ! / 72).toBeLessThan(perToken * 1.02)
    expect(round.metrics.energy_j_per_token).toBeCloseTo(round.gpu!.energyJ! / 72, 9)
    // A round of about 1.4 s holds two samples or so, taken while a step ran (but for the ms between requests).
    const [device] = round.gpu!.devices
    expect(round.gpu!.devices).toHaveLength(1)
    expect(device.samples).toBe(round.server!.samples)
    expect(device.powerW!.max).toBe(150)
    expect(device.powerW!.mean).toBeGreaterThanOrEqual(100)
    // The server record keeps the engine's own counters; the GPU's are in the GPU record only.
    // 3 requests of 16 unique prompt tokens: queried, none served from the prefix cache.
    expect(round.server!.deltas).toEqual({
      'vllm:request_success_total': 3,
      'vllm:prefix_cache_queries_total': 48,
      'vllm:prefix_cache_hits_total': 0,
    })
    expect(Object.keys({ ...round.server!.peaks, ...round.server!.means }).filter((k) => k.startsWith('sim:'))).toEqual(
      [],
    )
    expect(round.server!.peaks['vllm:num_requests_running']).toBe(1)
  }, 30_000)
})
