/**
 * Speculative decoding's split of decode tok/s (pure). A verify step yields `acceptance length` tokens in `step
 * time`, so decode = acceptance length ÷ step time: a change of decode is the drafter's (acceptance) or the
 * kernels' (step time). Each factor is judged like a gated metric — its steady value against its own reference,
 * with the noise of its own rounds and history (noise.ts) — under decode's relative limit (its `min-delta` is in
 * tok/s, which neither factor is).
 *
 * The factors' noise differs: at temperature 0 and a fixed seed, vLLM's spec-decode throughput varies 9.9–19.7 %
 * from run to run, driven by per-run acceptance (vllm-project/vllm #53436), while the step's time moves little. A
 * kernel regression can then hide in decode's band and stand out in the step time's. So:
 *
 * - the verdict on decode names both factors' changes (`decode −12.0 %: acceptance length −13.0 %, step time
 *   +0.6 %`) whenever it is not a plain pass;
 * - when decode does not fail on its own (it passes, or its band is too wide to tell) and a factor is a
 *   regression — worse beyond the limit and beyond its own noise band — while the other factor is not an
 *   improvement beyond its noise (which would really have made up for it), decode is a regression, attributed
 *   to that factor: a drafter that accepted more this run by chance does not hide slower kernels. A factor's test
 *   has the band decode's has (Z = 2.5), so an unchanged cell fails through a factor about as rarely as through
 *   decode (test/compare/spec-split.test.ts measures both, and the power it adds).
 */
import { DECODE_FACTORS, metricLabel, type RelativeMetric } from '../core/metrics.js'
import { formatDelta, formatPercent } from '../core/format.js'
import type { GateMetricConfig } from '../core/plan.js'
import type { MetricVerdict } from '../core/results.js'

/** Decode's limit as the factors are held to it: the relative part, on their mean. */
export function factorConfig(decode: GateMetricConfig): GateMetricConfig {
  return { maxRegression: decode.maxRegression, stat: 'mean' }
}

/**
 * Decode's verdict with its factors' verdicts (`judge` judges one factor; undefined when either side lacks it):
 * attributed, and a regression where a factor decides what decode's own band cannot.
 */
export function splitDecode(
  decode: MetricVerdict,
  judge: (factor: RelativeMetric) => MetricVerdict | undefined,
): MetricVerdict {
  const factors = (DECODE_FACTORS as RelativeMetric[]).flatMap((f) => {
    const v = judge(f)
    return v ? [v] : []
  })
  if (factors.length < DECODE_FACTORS.length) return decode
  const split: MetricVerdict = { ...decode, factors }
  const culprit = decode.status === 'inconclusive' || decode.status === 'pass' ? decidingFactor(factors) : undefined
  if (culprit) {
    delete split.needs
    delete split.moreRounds
    const own = `${metricLabel('decode', decode.stat)} ${formatDelta(decode.delta)} (noise ±${formatPercent(decode.band ?? 0)})`
    const why = `${metricLabel(culprit.metric, 'mean')} ${formatDelta(culprit.delta)} is beyond the limit and its own noise ±${formatPercent(culprit.band ?? 0)}`
    return { ...split, status: 'regression', reason: `${own}, but ${why}; ${attribution(decode, factors)}` }
  }
  if (decode.status !== 'pass') split.reason = `${decode.reason}; ${attribution(decode, factors)}`
  return split
}

/** The factor that makes decode a regression: a regressed one whose partner did not improve beyond its noise. */
function decidingFactor(factors: readonly MetricVerdict[]): MetricVerdict | undefined {
  if (factors.some((f) => f.status === 'improvement')) return undefined
  const regressed = factors.filter((f) => f.status === 'regression')
  // Both worse: the one farther past its band speaks for decode.
  return regressed.sort((a, b) => excess(b) - excess(a))[0]
}

function excess(v: MetricVerdict): number {
  return Math.abs(v.delta ?? 0) - (v.band ?? 0)
}

/** `decode −12.0 %: acceptance length −13.0 %, step time +0.6 %`. */
export function attribution(decode: MetricVerdict, factors: readonly MetricVerdict[]): string {
  const parts = factors.map((f) => `${metricLabel(f.metric, 'mean')} ${formatDelta(f.delta)}`)
  return `decode ${formatDelta(decode.delta)}: ${parts.join(', ')}`
}
