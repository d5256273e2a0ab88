/**
 * The engine's metrics endpoint around each steady round: its counters read before and after the round (the
 * deltas), its gauges sampled during it at most twice a second (peak and mean), every scrape bounded by its
 * own timeout. AIPerf scrapes `/metrics` during a run the same way; `vllm bench serve` only diffs counters.
 * The watch rides alongside the GPU watch: what it adds to the round is `server` (and `gpu` for an engine that models
 * its own GPU, EngineAdapter.roundGpu), and it never disturbs a round.
 */
import {
  counterDeltas,
  derivedRates,
  withoutSeries,
  type RoundServer,
  type ServerSeries,
} from '../core/server-counters.js'
import type { RoundWatch, WatchedRound } from '../core/telemetry.js'
import { readSeries, SCRAPE_TIMEOUT_MS } from '../engines/server-series.js'
import type { Counters, EngineAdapter, HttpPorts } from '../engines/types.js'

/** Gauges are sampled every this many ms during a round (≤ 2 samples/s). */
export const SERVER_SAMPLE_MS = 500

export interface ServerWatchOptions {
  sampleMs?: number
  timeoutMs?: number
}

/** A round watch reading the adapter's series; undefined for an engine without a metrics endpoint. */
export function serverWatch(
  adapter: EngineAdapter,
  http: HttpPorts,
  baseUrl: string,
  o: ServerWatchOptions = {},
): RoundWatch | undefined {
  const series = adapter.serverSeries
  if (!series) return undefined
  const read = () => readSeries(http, baseUrl, series, o.timeoutMs ?? SCRAPE_TIMEOUT_MS)
  return async () => {
    const before = await read()
    const sampler = gaugeSampler(read, o.sampleMs ?? SERVER_SAMPLE_MS)
    return async () => {
      const samples = await sampler.stop()
      const after = await read()
      const all = before && after ? roundServer(series, before, after, samples) : undefined
      if (!all) return {}
      // The engine's own GPU series make the round's GPU record, and only that.
      const gpu = adapter.roundGpu?.(all)
      const server = withoutSeries(all, series.gpu ?? [])
      return gpu ? { server, gpu } : { server }
    }
  }
}

/** One scrape after another, each `sampleMs` after the previous one began, until stopped; the samples taken. */
function gaugeSampler(read: () => Promise<Counters | undefined>, sampleMs: number) {
  const samples: Counters[] = []
  let stopped = false
  let wake: (() => void) | undefined
  const loop = (async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        wake = resolve
        setTimeout(resolve, sampleMs).unref()
      })
      if (stopped) return
      const sample = await read()
      if (sample && !stopped) samples.push(sample)
    }
  })()
  return {
    async stop(): Promise<Counters[]> {
      stopped = true
      wake?.()
      await loop
      return samples
    },
  }
}

/** Deltas, gauge peaks and means, and the derived rates of one round. */
export function roundServer(
  series: ServerSeries,
  before: Counters,
  after: Counters,
  samples: readonly Counters[],
): RoundServer {
  const deltas = counterDeltas(before, after, series.counters)
  const peaks: Record<string, number> = {}
  const means: Record<string, number> = {}
  for (const name of series.gauges) {
    const values = samples.flatMap((s) => (s[name] === undefined ? [] : [s[name]]))
    if (!values.length) continue
    peaks[name] = Math.max(...values)
    means[name] = values.reduce((a, b) => a + b, 0) / values.length
  }
  const rates = derivedRates(deltas, series.ratios)
  return { deltas, peaks, means, ...(rates && { rates }), samples: samples.length }
}

/**
 * The host's GPU watch and the server watch around the same round: the round is disturbed when the host's watch says
 * so; the host's watch gives `gpu`, the server watch `server`. An engine that models its own GPU (the simulator) gives
 * `gpu` too, and its record wins: the host's GPU, if it has one, is not the GPU that engine serves from, so its
 * readings say nothing about the round's energy; without nvidia-smi the engine's record is the only one.
 */
export function combineWatches(host: RoundWatch | undefined, server: RoundWatch | undefined): RoundWatch | undefined {
  if (!host || !server) return host ?? server
  return async () => {
    const endHost = await host()
    const endServer = await server().catch(() => undefined)
    return async (window) => {
      const [a, b] = await Promise.all([endHost(window), endServer?.(window).catch(() => undefined)])
      return {
        ...b,
        ...a,
        ...(b?.server && { server: b.server }),
        ...(b?.gpu && { gpu: b.gpu }),
      } satisfies WatchedRound
    }
  }
}
