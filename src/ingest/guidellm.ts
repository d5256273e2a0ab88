/**
 * GuideLLM's `benchmarks.json` (`guidellm benchmark --output-path`): `{ benchmarks: [...] }`, one benchmark per
 * strategy or rate of a sweep. Keys as vllm-project/guidellm `src/guidellm/benchmark/schemas/generative/metrics.py`
 * (`GenerativeMetrics`) and `benchmark.py` write them: each metric is a `StatusDistributionSummary` whose
 * `successful` part has `mean`, `median`, `std_dev`, `min`, `max` and `percentiles.p90`/`p99`.
 * `time_to_first_token_ms` is our TTFT; GuideLLM's `inter_token_latency_ms` is (last − first token) / (output
 * tokens − 1), our TPOT — its `time_per_output_token_ms` counts the first token too, so it is not used; it
 * weights the distribution by each request's tokens, so its mean is not the plain per-request mean ours is; it has
 * no per-chunk gaps (our ITL). `request_latency` is in seconds. Request counts are `metrics.request_totals`
 * (`request_totals` at the benchmark's top level in older releases), the strategy `config.strategy` (`args.strategy`).
 */
import type { Stats } from '../core/measurements.js'
import { ToolRecord } from './field-reader.js'
import { scenarioId } from './serving.js'
import type { Document, Figures, IngestFormat, IngestedRun } from './types.js'

const NOUN = 'a GuideLLM benchmark'

function summary(metrics: ToolRecord, key: string, scale = 1): Partial<Stats> | undefined {
  const ok = metrics.sub(key)?.sub('successful')
  if (!ok) return undefined
  const pct = ok.sub('percentiles')
  const at = (value: number | undefined) => (value === undefined ? undefined : value * scale)
  return {
    mean: at(ok.opt('mean')),
    p50: at(ok.opt('median') ?? pct?.opt('p50')),
    p90: at(pct?.opt('p90')),
    p99: at(pct?.opt('p99')),
    std: at(ok.opt('std_dev')),
    min: at(ok.opt('min')),
    max: at(ok.opt('max')),
  }
}

function benchmarkRun(benchmark: ToolRecord): IngestedRun {
  const metrics = benchmark.sub('metrics') ?? benchmark.fail('missing `metrics`')
  const totals =
    metrics.sub('request_totals') ??
    benchmark.sub('request_totals') ??
    benchmark.fail('missing `metrics.request_totals`')
  const ttft = summary(metrics, 'time_to_first_token_ms') ?? metrics.fail('missing `time_to_first_token_ms.successful`')
  const tpot = summary(metrics, 'inter_token_latency_ms') ?? {}
  const strategy = benchmark.sub('config')?.sub('strategy') ?? benchmark.sub('args')?.sub('strategy')
  const successful = totals.num('successful')
  const errored = totals.opt('errored') ?? 0
  const figures: Figures = {
    ttft_ms: ttft,
    tpot_ms: tpot,
    e2e_ms: summary(metrics, 'request_latency', 1000),
    decode_tps: { mean: tpot.mean ? 1000 / tpot.mean : undefined, p50: tpot.p50 ? 1000 / tpot.p50 : undefined },
    output_tps: summary(metrics, 'output_tokens_per_second')?.mean,
    total_tps: summary(metrics, 'tokens_per_second')?.mean,
    request_tps: summary(metrics, 'requests_per_second')?.mean,
    failed_share: errored / Math.max(successful + errored, 1),
  }
  const streams = strategy?.opt('streams') ?? strategy?.opt('max_concurrency')
  const rate = strategy?.opt('rate') ?? null
  const workload = {
    inputTokens: Math.round(summary(metrics, 'prompt_token_count')?.mean ?? 0),
    outputTokens: Math.round(summary(metrics, 'output_token_count')?.mean ?? 0),
    concurrency: streams ?? Math.round(summary(metrics, 'request_concurrency')?.mean ?? 1),
    requests: successful + errored,
    rate,
  }
  if (streams && figures.output_tps !== undefined) figures.per_user_tps = figures.output_tps / streams
  const duration = benchmark.opt('duration') ?? 0
  return {
    where: benchmark.where,
    file: benchmark.doc.file,
    target: 'guidellm',
    scenario: `${scenarioId(workload)}${strategy?.str('type_') ? `-${strategy.str('type_')}` : ''}`,
    model: null,
    workload,
    requests: successful + errored,
    errors: errored,
    durationMs: duration * 1000,
    figures,
    achieved: {
      promptTokens: { min: workload.inputTokens, max: workload.inputTokens },
      outputTokens: { min: workload.outputTokens, max: workload.outputTokens },
    },
    unmapped: [
      "tpot_ms: GuideLLM inter_token_latency_ms, weighted by each request's tokens",
      'itl_ms: no per-chunk gaps',
      "output_tps, total_tps, request_tps: the mean of GuideLLM's rate distributions",
      ...(streams ? [] : ['per_user_tps: no fixed concurrency']),
      'achieved lengths: the mean per request only',
    ],
  }
}

export const guidellm: IngestFormat = {
  name: 'guidellm',
  noun: NOUN,
  parse: (docs: readonly Document[]) =>
    docs.flatMap((doc) => {
      const top = new ToolRecord(doc, 'a GuideLLM benchmarks file')
      const list = top.raw('benchmarks')
      if (!Array.isArray(list)) return top.fail('missing `benchmarks` (a list)')
      return list.map((b, i) => benchmarkRun(new ToolRecord(doc, NOUN, b, `benchmarks[${i}]`)))
    }),
}
