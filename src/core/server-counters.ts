/**
 * What the engine's own metrics endpoint said about one round (`rounds[].server`): counters read before and
 * after the round (their deltas), gauges sampled during it (peak and mean), and rates derived from the deltas.
 * A per-run prefix-cache hit rate must come from counter deltas: vLLM's logged rate is a rolling window of the
 * last 1,000 requests (vllm-project/vllm PR #46938).
 */

/** The series of an engine's metrics endpoint that explain its speed, as exposed (counters with `_total`). */
export interface ServerSeries {
  /** Path of the Prometheus text endpoint (`/metrics`). */
  path: string
  /** Monotonic counters: recorded as their change over a round. */
  counters: readonly string[]
  /** Gauges: sampled during a round, recorded as peak and mean. */
  gauges: readonly string[]
  /** Derived rates: `name: [numerator counter, denominator counter]`, both deltas over the round. */
  ratios?: Readonly<Record<string, readonly [string, string]>>
  /**
   * Counters and gauges among the above that describe the engine's own GPU (the simulator's energy and power): read
   * with the others, they go into the round's GPU record (EngineAdapter.roundGpu), not into its server record.
   */
  gpu?: readonly string[]
}

export interface RoundServer {
  /** Counter changes over the round, under the engine's names. */
  deltas: Record<string, number>
  /** Highest value of each gauge over the samples taken during the round. */
  peaks: Record<string, number>
  /** Mean of each gauge over the same samples. */
  means: Record<string, number>
  /** Rates derived from the deltas (`prefix_cache_hit_rate`), where the denominator moved. */
  rates?: Record<string, number>
  /** Gauge samples taken during the round. */
  samples: number
}

/**
 * What a round may record of the engine's figures. A Prometheus counter only goes up from 0 and the gauges an
 * adapter names are counts and levels (https://prometheus.io/docs/concepts/metric_types/), so a negative or
 * non-finite reading is a broken endpoint: missing, never a value. A share (a hit rate, a usage fraction) lies
 * in [0, 1]: a reading outside it is clamped, so no report says 100,000 % or −3 %.
 */
const usable = (value: number | undefined): value is number =>
  value !== undefined && Number.isFinite(value) && value >= 0

/** A share clamped to [0, 1]; any other series' value as it is. */
export function clampShare(name: string, value: number): number {
  return isShare(name) ? Math.min(1, Math.max(0, value)) : value
}

/** A gauge sample as a round records it: undefined when negative or not finite, a share clamped to [0, 1]. */
export function gaugeValue(name: string, value: number | undefined): number | undefined {
  return usable(value) ? clampShare(name, value) : undefined
}

/**
 * Δ of each counter present in both readings. A counter that went down (an engine restart resets it to 0) is left
 * out rather than turned into a negative change, and so is one that read negative or not finite.
 */
export function counterDeltas(
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
  names: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {}
  for (const name of names) {
    const a = before[name]
    const b = after[name]
    if (usable(a) && usable(b) && b >= a) out[name] = b - a
  }
  return out
}

/** The round's record without the named series (those the round's GPU record holds). */
export function withoutSeries(server: RoundServer, names: readonly string[]): RoundServer {
  if (!names.length) return server
  const keep = (values: Record<string, number>) =>
    Object.fromEntries(Object.entries(values).filter(([name]) => !names.includes(name)))
  return { ...server, deltas: keep(server.deltas), peaks: keep(server.peaks), means: keep(server.means) }
}

/** Each ratio whose denominator moved during the round and whose quotient is finite; a share clamped to [0, 1]. */
export function derivedRates(
  deltas: Readonly<Record<string, number>>,
  ratios: ServerSeries['ratios'],
): Record<string, number> | undefined {
  const out: Record<string, number> = {}
  for (const [name, [num, den]] of Object.entries(ratios ?? {})) {
    const d = deltas[den]
    const n = deltas[num]
    // A denormal denominator makes a finite numerator's quotient overflow: missing, like a zero one.
    if (usable(d) && d > 0 && usable(n) && Number.isFinite(n / d)) out[name] = clampShare(name, n / d)
  }
  return Object.keys(out).length ? out : undefined
}

const LABELS: Readonly<Record<string, string>> = {
  'vllm:num_preemptions_total': 'preemptions',
  'vllm:prefix_cache_queries_total': 'prefix-cache queried tokens',
  'vllm:prefix_cache_hits_total': 'prefix-cache hit tokens',
  'vllm:request_success_total': 'requests finished',
  'vllm:num_requests_waiting': 'waiting',
  'vllm:num_requests_running': 'running',
  'vllm:kv_cache_usage_perc': 'KV-cache usage',
  'sglang:num_queue_reqs': 'queued',
  'sglang:num_running_reqs': 'running',
  'llamacpp:prompt_tokens_total': 'prompt tokens evaluated',
  'llamacpp:prompt_tokens_cached_total': 'prompt tokens from cache',
  'llamacpp:n_decode_total': 'decode calls',
  'llamacpp:spec_decode_num_drafts_total': 'spec-decode drafts',
  'llamacpp:spec_decode_num_draft_tokens_total': 'spec-decode draft tokens',
  'llamacpp:spec_decode_num_accepted_tokens_total': 'spec-decode accepted tokens',
  'vllm:spec_decode_num_drafts_total': 'spec-decode drafts',
  'vllm:spec_decode_num_draft_tokens_total': 'spec-decode draft tokens',
  'vllm:spec_decode_num_accepted_tokens_total': 'spec-decode accepted tokens',
  prefix_cache_hit_rate: 'prefix-cache hit rate',
  spec_acceptance_rate: 'spec-decode acceptance',
}

/** A series' name in words: a known one's label, else the name without its engine prefix and `_total`. */
export function seriesLabel(name: string): string {
  return (
    LABELS[name] ??
    name
      .replace(/^[a-z]+:/, '')
      .replace(/_total$/, '')
      .replace(/_/g, ' ')
  )
}

/** Rates and usage gauges that are shares (0–1) and read as percentages. */
export function isShare(name: string): boolean {
  return name.endsWith('_rate') || name.endsWith('_perc') || name === 'sglang:token_usage'
}

/**
 * A series' value in words: a share as a percentage (clamped to 0–100 %, since a stored file may hold one a broken
 * endpoint gave before shares were clamped), a whole count as itself (`37`), else three figures.
 */
export function formatSeries(name: string, value: number, formatNumber: (v: number) => string): string {
  if (isShare(name)) return `${formatNumber(clampShare(name, value) * 100)} %`
  return Number.isInteger(value) ? value.toLocaleString('en-US') : formatNumber(value)
}
