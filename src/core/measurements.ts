/** Measurement records (definitions: src/bench/README.md). All times are milliseconds from a monotonic clock. */
import type { RequestError } from './errors.js'
import type { DegenerateCheck } from './quality.js'
import type { RoundGpu } from './telemetry.js'
import type { RoundHost } from './round-host.js'
import type { RoundServer } from './server-counters.js'

export interface Stats {
  mean: number
  p50: number
  p90: number
  p99: number
  std: number
  min: number
  max: number
}

export const DISTRIBUTION_METRICS = ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms', 'decode_tps', 'prefill_tps'] as const
export type DistributionMetric = (typeof DISTRIBUTION_METRICS)[number]

/** Round-level figures; `failed_share` is failed requests / requests sent in the round. */
export const SCALAR_METRICS = ['output_tps', 'total_tps', 'per_user_tps', 'request_tps', 'failed_share'] as const
export type ScalarMetric = (typeof SCALAR_METRICS)[number]

/**
 * Round-level figures only some rounds have: `energy_j_per_token` (GPU energy over the round ÷ its output tokens)
 * where the GPUs reported power during it; `accept_length` (tokens per verify step) and `step_ms` (verify-step
 * time, acceptance length ÷ decode tok/s) where the engine drafted (speculative decoding); `goodput` (good
 * requests ÷ requests sent) and `request_goodput` (good requests/s) where the scenario has an `slo`. The steady
 * state averages them over the rounds that have them (`goodput` over every steady round, as `failed_share`).
 * `ttft_per_1k_added` (ms of TTFT per 1,000 prompt tokens a conversation's turn added, turns ≥ 2) where the
 * scenario has `turns` (bench/rounds/turns.ts).
 */
export const OPTIONAL_SCALAR_METRICS = [
  'energy_j_per_token',
  'accept_length',
  'step_ms',
  'goodput',
  'request_goodput',
  'ttft_per_1k_added',
] as const
export type OptionalScalarMetric = (typeof OPTIONAL_SCALAR_METRICS)[number]

export type MetricsBlock = Record<DistributionMetric, Stats> &
  Record<ScalarMetric, number> &
  Partial<Record<OptionalScalarMetric, number>>

/** What one streamed request produced. */
export interface RequestRecord {
  index: number
  ok: boolean
  /** Why the request failed (`HTTP 500: …`, `stream cut`, `timeout: no token within 10m`, …). */
  error?: string
  /** Time spent waiting in our own scheduler before the request was sent. */
  queueMs: number
  /** Monotonic send time (ms). */
  sentAt: number
  ttftMs: number
  e2eMs: number
  promptTokens: number
  outputTokens: number
  /** False when the server sent no `usage` and tokens were counted from chunks. */
  usageReported: boolean
  /** Gaps between token-bearing events (chunks, not tokens). */
  itlMs: number[]
  /** The degenerate-output check of the streamed text's first characters (successful requests). */
  output?: DegenerateCheck
  /** Token-bearing events received. */
  chunks: number
  /** Figures the engine's adapter read from the stream, under the engine's own names (EngineAdapter.streamExtras). */
  extras?: Record<string, number>
  /** Send → first SSE event of any kind (diagnostic: a role or progress chunk may precede the first token). */
  firstEventMs?: number
  /** Index of the SSE event that carried the first token (role-only and empty chunks are skipped). */
  ttftEvent?: number
  /** How the request failed, when it did. */
  errorKind?: RequestError['kind']
  /** Sent twice: the first attempt's connection closed before any response byte; this record is of the second. */
  retried?: true
  /** A digest of the prompt sent (StreamOutcome.prompt). */
  prompt?: number
  /** Send → the moment the request ended, however it ended (its last token, an error, a timeout). */
  endMs?: number
  /** The request's turn in its conversation, from 1 (a `turns` scenario). */
  turn?: number
  /** Prompt tokens this turn added since the same conversation's previous turn (server counts; turns ≥ 2). */
  addedTokens?: number
}

/** One turn of a round's conversations (`rounds[].turns`): its successful requests' means. */
export interface TurnFigures {
  /** From 1. */
  turn: number
  /** Successful requests of this turn. */
  ok: number
  ttft_ms: number
  prompt_tokens: number
  /** Prompt tokens added since the previous turn; absent for turn 1 and where no request of the turn had it. */
  added_tokens?: number
}

export interface ErrorCount {
  reason: string
  count: number
}

export interface RoundResult {
  index: number
  /** Counted in the steady state (index >= discard). */
  steady: boolean
  requests: number
  errors: number
  errorReasons: ErrorCount[]
  /** Requests sent a second time, on a fresh connection, after their first connection closed before a response. */
  retried?: number
  durationMs: number
  metrics: MetricsBlock
  /** What the GPUs did during a steady round, where `nvidia-smi` answered (telemetry.ts). */
  gpu?: RoundGpu
  /** The engine's counter deltas and gauge peaks over a steady round, where it has a metrics endpoint (`rounds[].server`). */
  server?: RoundServer
  /** The box during a steady round: uptime, engine launch age, memory, swap, CPU load, other processes (`rounds[].host`, round-host.ts). */
  host?: RoundHost
  /**
   * A digest of the prompts the round sent, in any order (8 hex digits): two rounds with the same digest sent the same
   * prompts, so a drafter's greedy acceptance can be compared between them round by round. Absent when a request's
   * prompt was not recorded.
   */
  prompts?: string
  /** Per turn of a `turns` scenario's conversations, first turn first. */
  turns?: TurnFigures[]
  /** Achieved lengths over successful requests. */
  achieved: { promptTokens: { min: number; max: number }; outputTokens: { min: number; max: number } }
}
