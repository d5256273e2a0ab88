/**
 * Goodput: the requests of a round that succeeded and met every latency bound of the scenario's `slo`, as
 * `vllm bench serve --goodput ttft:X tpot:Y e2el:Z` counts them (vLLM's `vllm/benchmarks/serve.py`,
 * `calculate_metrics`; SLO attainment as DistServe, Zhong et al., OSDI 2024, defines it: a request attains the
 * SLO when it meets every latency bound). A value exactly at its bound meets it, and a request of one output token has no TPOT, so it meets a
 * `tpot` bound (vLLM counts its TPOT as 0). A failed request is never good.
 */
import type { RequestRecord } from '../../core/measurements.js'
import type { SloBounds } from '../../core/plan.js'

/** (e2e − TTFT) / (output tokens − 1), the per-request TPOT; undefined for a request of fewer than two tokens. */
export function requestTpot(r: Pick<RequestRecord, 'e2eMs' | 'ttftMs' | 'outputTokens'>): number | undefined {
  return r.outputTokens > 1 ? (r.e2eMs - r.ttftMs) / (r.outputTokens - 1) : undefined
}

/** True when the request succeeded and meets every bound the SLO gives. */
export function meetsSlo(r: RequestRecord, slo: SloBounds): boolean {
  if (!r.ok) return false
  if (slo.ttftMs !== undefined && !(r.ttftMs <= slo.ttftMs)) return false
  if (slo.e2eMs !== undefined && !(r.e2eMs <= slo.e2eMs)) return false
  const tpot = requestTpot(r)
  return slo.tpotMs === undefined || tpot === undefined || tpot <= slo.tpotMs
}

/** The round's goodput: good requests ÷ requests sent, and good requests per second of the round's duration. */
export function goodputFigures(
  records: readonly RequestRecord[],
  slo: SloBounds,
  durationMs: number,
): { goodput: number; request_goodput: number } {
  const good = records.filter((r) => meetsSlo(r, slo)).length
  return {
    goodput: records.length ? good / records.length : 0,
    request_goodput: durationMs > 0 ? good / (durationMs / 1000) : 0,
  }
}
