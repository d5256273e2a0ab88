/**
 * The engine's metrics endpoint around each steady round: its counters read before and after the round (the
 * deltas), its gauges sampled during it at most twice a second (peak and mean), every scrape bounded by its
 * own timeout and a size cap, and all of it off the measuring thread (round-scrape.ts). AIPerf scrapes `/metrics`
 * during a run the same way; `vllm bench serve` only diffs counters.
 * The watch rides alongside the GPU watch: what it adds to the round is `server` (and `gpu` for an engine that models
 * its own GPU, EngineAdapter.roundGpu), and it never disturbs a round.
 */
import {
  counterDeltas,
  derivedRates,
  gaugeValue,
  withoutSeries,
  type RoundServer,
  type ServerSeries,
} from '../core/server-counters.js'
import { formatBytes } from '../core/format.js'
import type { Logger } from '../core/log.js'
import type { RoundWatch, WatchedRound } from '../core/telemetry.js'
import { joinUrl } from '../core/url.js'
import { SCRAPE_MAX_BYTES, SCRAPE_TIMEOUT_MS } from '../engines/scrape.js'
import type { Counters, EngineAdapter } from '../engines/types.js'
import { bundledScrapeWorker, startRoundScrape, type RoundReadings, type ScrapeSpec } from './round-scrape.js'

/** Gauges are sampled every this many ms during a round (≤ 2 samples/s). */
export const SERVER_SAMPLE_MS = 500

export interface ServerWatchOptions {
  sampleMs?: number
  timeoutMs?: number
  /** Bytes of the endpoint's body a scrape reads at most (SCRAPE_MAX_BYTES). */
  maxBytes?: number
  /** Hears, once per watch, that a body passed the cap. */
  log?: Logger
  /** The worker script; default the bundle's, which the sources run directly have not (round-scrape.ts). */
  script?: string
}

/** A round watch reading the adapter's series; undefined for an engine without a metrics endpoint. */
export function serverWatch(
  adapter: EngineAdapter,
  baseUrl: string,
  o: ServerWatchOptions = {},
): RoundWatch | undefined {
  const series = adapter.serverSeries
  if (!series) return undefined
  const spec: ScrapeSpec = {
    url: joinUrl(baseUrl, series.path),
    names: [...series.counters, ...series.gauges],
    sampleMs: o.sampleMs ?? SERVER_SAMPLE_MS,
    timeoutMs: o.timeoutMs ?? SCRAPE_TIMEOUT_MS,
    maxBytes: o.maxBytes ?? SCRAPE_MAX_BYTES,
  }
  const script = o.script ?? bundledScrapeWorker()
  let warned = false
  const sayCut = (readings: RoundReadings) => {
    if (readings.cutAt === undefined || warned) return
    warned = true
    o.log?.warn(
      `${spec.url}: the body passed ${formatBytes(spec.maxBytes)}; reading stopped there, so a series the engine serves after it is missing from the round's server counters`,
    )
  }
  return async () => {
    const scrape = await startRoundScrape(spec, script)
    return async () => {
      const readings = await scrape.stop()
      sayCut(readings)
      const { before, after, samples } = readings
      const all = before && after ? roundServer(series, before, after, samples) : undefined
      if (!all) return {}
      // The engine's own GPU series make the round's GPU record, and only that.
      const gpu = adapter.roundGpu?.(all)
      const server = withoutSeries(all, series.gpu ?? [])
      return gpu ? { server, gpu } : { server }
    }
  }
}

/**
 * Deltas, gauge peaks and means, and the derived rates of one round. A gauge sample that is negative or not finite
 * is missing, a share is clamped to [0, 1] (core/server-counters.ts); the mean is kept as a running mean, so large
 * finite samples never sum past the largest double.
 */
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
    const values = samples.flatMap((s) => {
      const v = gaugeValue(name, s[name])
      return v === undefined ? [] : [v]
    })
    if (!values.length) continue
    peaks[name] = Math.max(...values)
    means[name] = values.reduce((m, v, i) => m + (v - m) / (i + 1), 0)
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
      // The engine's counters first, at the round's end: the host's watch then samples /proc and stops its GPU
      // sampler (trimmed to the window, so a later stop moves nothing), work that would push the counters' read
      // later and add the idle time after the round to what they count (the sim's energy).
      const b = await endServer?.(window).catch(() => undefined)
      const a = await endHost(window)
      return {
        ...b,
        ...a,
        ...(b?.server && { server: b.server }),
        ...(b?.gpu && { gpu: b.gpu }),
      } satisfies WatchedRound
    }
  }
}
