// CONTRACT STUB — the bench helper replaces the bodies; keep the exported names and shapes.
import type { Api, ScenarioPlan } from '../config/plan.js'
import type { EngineAdapter } from '../engines/types.js'
import type { ErrorCount, MetricsBlock, RequestRecord, RoundResult } from './types.js'

export interface BenchTarget {
  baseUrl: string
  adapter: EngineAdapter
  /** Model name sent in requests; when absent the client asks `/v1/models`. */
  model: string | undefined
  api: Api
  requestTimeoutMs: number
  /** Highest concurrency this client will be asked for (sizes the undici Agent). */
  maxConcurrency: number
}

export interface RoundProgress {
  round: number
  rounds: number
  done: number
  total: number
  errors: number
  /** Output tokens per second so far in this round. */
  tokensPerSecond: number
}

export interface MeasureOptions {
  scenario: ScenarioPlan
  rounds: number
  discard: number
  maxErrorShare: number
  seed: number
  onRound?: (p: RoundProgress) => void
  signal?: AbortSignal
}

export interface CellMeasurement {
  rounds: RoundResult[]
  /** Steady state: mean of each round statistic over rounds >= discard; null when no request succeeded. */
  metrics: MetricsBlock | null
  /** `lengths-missed: prompt 1000/1024`, `usage-missing`, `errors: 3/8 in round 2`, … */
  flags: string[]
  /** Every request of the kept rounds (for spec-decode stream counters). */
  requests: RequestRecord[]
  errors: ErrorCount[]
}

export interface BenchClient {
  /** One streamed 1-token request; throws a RequestError when it fails (readiness smoke test). */
  smoke(): Promise<void>
  measure(options: MeasureOptions): Promise<CellMeasurement>
  close(): Promise<void>
}

export function createBenchClient(_target: BenchTarget): BenchClient {
  throw new Error('not implemented')
}
