/**
 * GPU telemetry of one round as the results file records it (`rounds[].gpu`), and the shape of the watch the
 * bench client runs around each steady round: started before the round, ended after it with the round's own
 * window, it names what disturbed the round and what the GPUs did during it.
 */
import type { GpuScope } from './host.js'
import type { RoundHost } from './round-host.js'
import type { RoundServer } from './server-counters.js'

/** Mean and maximum of one gauge over the samples taken inside the round. */
export interface Gauge {
  mean: number
  max: number
}

/**
 * One GPU over one round. A gauge the GPU reports as `[N/A]` or `[Not Supported]` in every sample is absent
 * (a GB10 reports no framebuffer memory), never 0.
 */
export interface GpuRoundDevice {
  /** `nvidia-smi`'s GPU index. */
  index: number
  /** Samples taken inside the round. */
  samples: number
  powerW?: Gauge
  smClockMhz?: Gauge
  memClockMhz?: Gauge
  temperatureC?: Gauge
  utilizationPct?: Gauge
}

export interface RoundGpu {
  /** One entry per GPU that answered, by index. */
  devices: GpuRoundDevice[]
  /** Energy of every GPU over the round's window (joules), where each reported power. */
  energyJ?: number
  /** The GPUs `devices` and `energyJ` count, of the host's (`rounds[].gpu.counted`); absent for an engine's own record. */
  counted?: GpuScope
  /** Why the SM clock counts as having dropped during the round (`GPU 0 SM clock 1200 MHz for 1.0 s, < 90 % of 1980 MHz`). */
  clockDrop?: string
}

/** A round's window on the monotonic clock the request records use (`performance.now()` ms). */
export interface RoundWindow {
  startMs: number
  endMs: number
}

/** What the watch says after a round. */
export interface WatchedRound {
  /** What disturbed the round (a GPU slowdown, an SM clock drop): the round is measured again. */
  disturbed?: string
  gpu?: RoundGpu
  /** What the engine's metrics endpoint said about the round (server-counters.ts). */
  server?: RoundServer
  /** The box around the round: memory, swap, CPU load, other processes (round-host.ts); recorded, never re-measured. */
  host?: RoundHost
}

/** Called before a round; the function it returns is called with the round's window once the round ended. */
export type RoundWatch = () => Promise<(window: RoundWindow) => Promise<WatchedRound>>
