/**
 * Results files written by the first release, read as the current shapes. Three things differ there:
 * - a metric verdict names its figure by metric key (`metric: "decode_tps.mean"`) and has no `stat`;
 * - `verdict.reference` maps metric keys to bare values (`{ "ttft_ms.p99": 81.4 }`);
 * - metrics blocks have no `failed_share`.
 * The first two are rewritten to `{ metric, stat }`. A missing `failed_share` is computed the way the
 * current release computes it, from counts every round carries: a round's errors / requests, and for
 * a cell the errors over the requests of its steady rounds (0 when nothing was sent). So an old
 * baseline gates the failed-requests share like a new one, and a rewritten baseline carries it.
 */
import { GATED_METRICS, GATE_STATS, metricInfo, metricKey, type MetricRef } from '../core/metrics.js'

const BY_KEY: ReadonlyMap<string, MetricRef> = new Map(
  GATED_METRICS.flatMap((metric) =>
    (metricInfo(metric).scalar ? (['mean'] as const) : GATE_STATS).map(
      (stat) => [metricKey(metric, stat), { metric, stat }] as const,
    ),
  ),
)

/** `decode_tps.mean` → decode, mean; `output_tps` → output-throughput, mean; undefined when the key names no gated figure. */
export function parseMetricKey(key: string): MetricRef | undefined {
  return BY_KEY.get(key)
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A metric verdict keyed the first release's way gets `{ metric, stat }`; anything else is left for the schema to judge. */
export function upgradeMetricVerdict(value: unknown): unknown {
  if (!isRecord(value) || 'stat' in value || typeof value.metric !== 'string') return value
  const ref = parseMetricKey(value.metric)
  return ref ? { ...value, ...ref } : value
}

/** `{ "decode_tps.mean": 28.6 }` → `{ decode: { stat: "mean", value: 28.6 } }`; entries already in the current shape stay. */
export function upgradeReference(value: unknown): unknown {
  if (!isRecord(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, entry] of Object.entries(value)) {
    const ref = typeof entry === 'number' ? parseMetricKey(key) : undefined
    if (ref) out[ref.metric] = { stat: ref.stat, value: entry }
    else out[key] = entry
  }
  return out
}

interface Counted {
  errors: number
  requests: number
}

const share = (rounds: readonly Counted[]): number => {
  const sent = rounds.reduce((n, r) => n + r.requests, 0)
  return sent ? rounds.reduce((n, r) => n + r.errors, 0) / sent : 0
}

/** A round's metrics with `failed_share` filled in when the file has none. */
export function withRoundShare<R extends Counted & { metrics: { failed_share?: number | null } }>(
  round: R,
): R & { metrics: { failed_share: number | null } } {
  // null (a tool that counts no failures) stays null; only an absent share is computed.
  const failed_share = round.metrics.failed_share === undefined ? share([round]) : round.metrics.failed_share
  return { ...round, metrics: { ...round.metrics, failed_share } }
}

/** A cell's steady-state metrics with `failed_share` filled in from its steady rounds when the file has none. */
export function withCellShare<
  C extends { metrics: { failed_share?: number | null } | null; rounds: ReadonlyArray<Counted & { steady: boolean }> },
>(cell: C): C & { metrics: { failed_share: number | null } | null } {
  if (!cell.metrics || cell.metrics.failed_share !== undefined)
    return cell as C & { metrics: { failed_share: number | null } | null }
  return { ...cell, metrics: { ...cell.metrics, failed_share: share(cell.rounds.filter((r) => r.steady)) } }
}
