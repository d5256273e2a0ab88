/**
 * Per-round statistics and the steady state of a cell. The per-request figures follow
 * `vllm bench serve` (vLLM's `vllm/benchmarks/serve.py`, `calculate_metrics`): TPOT =
 * (e2e − TTFT) / (output tokens − 1) over requests with more than one token, ITL = gaps between
 * streamed chunks, and NumPy's mean, linear-interpolation percentiles and std (ddof 0). The round
 * duration runs from the first send to the last token event (vLLM divides by the whole run's wall
 * time instead), and the round's throughputs divide by it. Failed requests are counted and
 * grouped by reason, never part of a statistic.
 */
import { describe, extent, mean } from '../../core/stats.js'
import type { RoundWindow } from '../../core/telemetry.js'
import type { SloBounds } from '../../core/plan.js'
import { fnv1a } from '../../core/hash.js'
import {
  DISTRIBUTION_METRICS,
  OPTIONAL_SCALAR_METRICS,
  SCALAR_METRICS,
  type ErrorCount,
  type MetricsBlock,
  type RequestRecord,
  type RoundResult,
  type Stats,
} from '../../core/measurements.js'
import { goodputFigures, requestTpot } from './goodput.js'

export interface RoundContext {
  index: number
  steady: boolean
  /**
   * Divisor of per-user throughput: the closed-loop concurrency (at most the round's requests),
   * or null in open-loop mode, where the mean number in flight (Σ e2e / duration) stands in.
   */
  concurrency: number | null
  /** When the round ended, for the duration of a round where nothing succeeded. */
  endedAt: number
  /** The scenario's latency targets: the round then records its goodput (goodput.ts). */
  slo?: SloBounds
}

/** Failure reasons with their counts, most frequent first. */
export function countReasons(reasons: Iterable<readonly [string, number]>): ErrorCount[] {
  const counts = new Map<string, number>()
  for (const [reason, n] of reasons) counts.set(reason, (counts.get(reason) ?? 0) + n)
  return [...counts]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
}

/** The round's window on the records' clock: first send to last token, the span its throughputs divide by. */
export function roundWindow(records: readonly RequestRecord[], round: Pick<RoundResult, 'durationMs'>): RoundWindow {
  const startMs = records.length ? extent(records.map((r) => r.sentAt)).min : 0
  return { startMs, endMs: startMs + round.durationMs }
}

export function summarizeRound(ctx: RoundContext, records: readonly RequestRecord[]): RoundResult {
  const ok = records.filter((r) => r.ok)
  const failed = records.filter((r) => !r.ok)
  const retried = records.filter((r) => r.retried).length
  const firstSend = records.length ? extent(records.map((r) => r.sentAt)).min : ctx.endedAt
  const lastToken = ok.length ? extent(ok.map((r) => r.sentAt + r.e2eMs)).max : ctx.endedAt
  const durationMs = Math.max(0, lastToken - firstSend)
  const seconds = durationMs / 1000

  // TPOT needs two tokens (vLLM leaves shorter requests out the same way).
  const tpot = ok.flatMap((r) => requestTpot(r) ?? [])
  const outputTokens = ok.reduce((s, r) => s + r.outputTokens, 0)
  const promptTokens = ok.reduce((s, r) => s + r.promptTokens, 0)
  const perSecond = (x: number) => (seconds > 0 ? x / seconds : 0)
  const outputTps = perSecond(outputTokens)
  const inFlight = ctx.concurrency ?? (seconds > 0 ? ok.reduce((s, r) => s + r.e2eMs, 0) / durationMs : 0)

  const metrics: MetricsBlock = {
    ttft_ms: describe(ok.map((r) => r.ttftMs)),
    tpot_ms: describe(tpot),
    itl_ms: describe(ok.flatMap((r) => r.itlMs)),
    e2e_ms: describe(ok.map((r) => r.e2eMs)),
    decode_tps: decodeRates(tpot),
    prefill_tps: describe(
      ok.filter((r) => r.promptTokens > 0 && r.ttftMs > 0).map((r) => r.promptTokens / (r.ttftMs / 1000)),
    ),
    output_tps: outputTps,
    total_tps: perSecond(outputTokens + promptTokens),
    per_user_tps: inFlight > 0 ? outputTps / inFlight : 0,
    request_tps: perSecond(ok.length),
    failed_share: records.length ? failed.length / records.length : 0,
  }
  if (ctx.slo) Object.assign(metrics, goodputFigures(records, ctx.slo, durationMs))
  return {
    index: ctx.index,
    steady: ctx.steady,
    requests: records.length,
    errors: failed.length,
    errorReasons: countReasons(failed.map((r) => [r.error ?? 'unknown error', 1] as const)),
    ...(retried > 0 && { retried }),
    durationMs,
    metrics,
    ...promptsDigest(records),
    achieved: {
      promptTokens: extent(ok.map((r) => r.promptTokens)),
      outputTokens: extent(ok.map((r) => r.outputTokens)),
    },
  }
}

/**
 * Per-request decode rates, 1000 / TPOT, with their percentiles as they are; the mean is 1000 / mean(TPOT), the
 * harmonic mean of the rates, which agrees with TPOT and with an engine's own aggregate. The arithmetic mean of
 * rates lets one fast request outweigh the rest: with a draft model that accepts a whole reply at once, one
 * request at 2,000 tok/s among seven at 25 makes it 272 tok/s where TPOT says 28.
 */
function decodeRates(tpot: readonly number[]): Stats {
  // All tokens in one chunk makes TPOT 0 and the rate unbounded: no rate to report for that request.
  const rates = describe(tpot.filter((t) => t > 0).map((t) => 1000 / t))
  const meanTpot = mean(tpot)
  return meanTpot > 0 ? { ...rates, mean: 1000 / meanTpot } : rates
}

/** Mean of each round statistic over the steady rounds that had a successful request; null when none had. */
export function steadyState(rounds: readonly RoundResult[]): MetricsBlock | null {
  const kept = rounds.filter((r) => r.steady && r.errors < r.requests)
  if (!kept.length) return null
  const block = {} as MetricsBlock
  for (const key of DISTRIBUTION_METRICS) {
    const stats = kept.map((r) => r.metrics[key])
    block[key] = {
      mean: mean(stats.map((s) => s.mean)),
      p50: mean(stats.map((s) => s.p50)),
      p90: mean(stats.map((s) => s.p90)),
      p99: mean(stats.map((s) => s.p99)),
      std: mean(stats.map((s) => s.std)),
      min: mean(stats.map((s) => s.min)),
      max: mean(stats.map((s) => s.max)),
    }
  }
  for (const key of SCALAR_METRICS) block[key] = mean(kept.map((r) => r.metrics[key]))
  for (const key of OPTIONAL_SCALAR_METRICS) {
    const values = kept.flatMap((r) => (r.metrics[key] === undefined ? [] : [r.metrics[key]]))
    if (values.length) block[key] = mean(values)
  }
  // Failures count over every steady round, including one where nothing succeeded.
  const steady = rounds.filter((r) => r.steady)
  const sent = steady.reduce((n, r) => n + r.requests, 0)
  block.failed_share = sent ? steady.reduce((n, r) => n + r.errors, 0) / sent : 0
  // So does goodput: a round where nothing succeeded had no good request.
  const judged = steady.filter((r) => r.metrics.goodput !== undefined)
  const judgedSent = judged.reduce((n, r) => n + r.requests, 0)
  if (judgedSent) block.goodput = judged.reduce((n, r) => n + r.metrics.goodput! * r.requests, 0) / judgedSent
  return block
}

/** The round's `prompts`: a digest of its requests' prompt digests, sorted; none when one is missing. */
function promptsDigest(records: readonly RequestRecord[]): { prompts?: string } {
  if (!records.length || records.some((r) => r.prompt === undefined)) return {}
  const sorted = records.map((r) => r.prompt!).sort((a, b) => a - b)
  return { prompts: fnv1a(sorted.join(',')).toString(16).padStart(8, '0') }
}
