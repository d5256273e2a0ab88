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
 *
 * The request: the report's `args.data` (`GenerativeBenchmarksReport.args`, `BenchmarkGenerativeTextArgs.data`, a
 * list of strings; older releases: each benchmark's `request_loader.data`) is the data spec, which for synthetic
 * data is `prompt_tokens=512,output_tokens=256` pairs or a JSON object (`src/guidellm/data/config.py`
 * `_load_config_str`) of `SyntheticTextDatasetConfig`: `prompt_tokens` and `output_tokens` are the average
 * lengths asked for, and a `*_stdev`, `*_min` or `*_max` makes them a spread. A dataset file or name records no
 * lengths. The strategy's `streams` (concurrent), `max_concurrency` and `rate` are requested; `synchronous` is one
 * at a time.
 */
import type { Stats } from '../core/measurements.js'
import { ToolRecord } from './field-reader.js'
import type { Document, Figures, IngestFormat, Requested, ToolRun } from './types.js'

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

/** The synthetic data spec's fields, from `k=v,k=v` or a JSON object; undefined for a dataset file or name. */
function dataSpec(data: unknown): Record<string, unknown> | undefined {
  const text = Array.isArray(data) ? data[0] : data
  if (typeof text === 'object' && text !== null && !Array.isArray(text)) return text as Record<string, unknown>
  if (typeof text !== 'string') return undefined
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined
    } catch {
      return undefined
    }
  }
  if (!trimmed.includes('=')) return undefined
  const pairs = trimmed.split(',').map((item) => item.split('=').map((part) => part.trim()))
  if (pairs.some((pair) => pair.length !== 2)) return undefined
  return Object.fromEntries(pairs.map(([k, v]) => [k, /^\d+$/.test(v) ? Number(v) : v]))
}

const SPREAD_KEYS = ['stdev', 'min', 'max'] as const

/** One requested length of the spec (`prompt` or `output`), and what makes it a spread. */
function specLength(spec: ToolRecord | undefined, which: 'prompt' | 'output'): { tokens?: number; spread?: string } {
  if (!spec) return {}
  const spread = SPREAD_KEYS.map((k) => `${which}_tokens_${k}`).filter((k) => spec.has(k))
  return {
    tokens: spec.count(`${which}_tokens`),
    spread: spread.length ? spread.map((k) => `${k} ${String(spec.raw(k))}`).join(', ') : undefined,
  }
}

function requested(spec: ToolRecord | undefined, strategy: ToolRecord | undefined, sent: number): Requested {
  const prompt = specLength(spec, 'prompt')
  const output = specLength(spec, 'output')
  const type = strategy?.str('type_')
  const concurrency = type === 'synchronous' ? 1 : (strategy?.opt('streams') ?? strategy?.opt('max_concurrency'))
  const spread = prompt.spread || output.spread ? { input: prompt.spread, output: output.spread } : undefined
  return {
    inputTokens: prompt.tokens,
    outputTokens: output.tokens,
    concurrency: concurrency ?? null,
    requests: sent,
    rate: strategy?.opt('rate') ?? null,
    ...(spread ? { spread } : {}),
    ...(type ? { variant: type } : {}),
  }
}

function benchmarkRun(benchmark: ToolRecord, data: unknown): ToolRun {
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
  const specValue = dataSpec(data ?? benchmark.sub('request_loader')?.raw('data'))
  const specAt = data === undefined ? `${benchmark.at}.request_loader.data` : 'args.data'
  const spec = specValue ? new ToolRecord(benchmark.doc, benchmark.noun, specValue, specAt) : undefined
  const request = requested(spec, strategy, successful + errored)
  const streams = request.concurrency
  if (streams && figures.output_tps !== undefined) figures.per_user_tps = figures.output_tps / streams
  const means = {
    promptTokens: summary(metrics, 'prompt_token_count')?.mean ?? 0,
    outputTokens: summary(metrics, 'output_token_count')?.mean ?? 0,
    concurrency: summary(metrics, 'request_concurrency')?.mean,
  }
  const duration = benchmark.opt('duration') ?? 0
  return {
    where: benchmark.where,
    file: benchmark.doc.file,
    target: 'guidellm',
    model: null,
    requested: request,
    requests: successful + errored,
    errors: errored,
    durationMs: duration * 1000,
    figures,
    achieved: {
      promptTokens: { min: means.promptTokens, max: means.promptTokens },
      outputTokens: { min: means.outputTokens, max: means.outputTokens },
    },
    means,
    unmapped: [
      "tpot_ms: GuideLLM inter_token_latency_ms, weighted by each request's tokens",
      'itl_ms: no per-chunk gaps',
      "output_tps, total_tps, request_tps: the mean of GuideLLM's rate distributions",
      ...(streams
        ? []
        : ['per_user_tps: no fixed concurrency', 'concurrency: not bounded, the measured mean in flight']),
      'achieved lengths: the mean per request only',
    ],
  }
}

export const guidellm: IngestFormat = {
  name: 'guidellm',
  noun: NOUN,
  lengthsHint: 'or benchmark synthetic data (--data prompt_tokens=N,output_tokens=N is recorded)',
  parse: (docs: readonly Document[]) =>
    docs.flatMap((doc) => {
      const top = new ToolRecord(doc, 'a GuideLLM benchmarks file')
      const list = top.raw('benchmarks')
      if (!Array.isArray(list)) return top.fail('missing `benchmarks` (a list)')
      const data = top.sub('args')?.raw('data')
      return list.map((b, i) => benchmarkRun(new ToolRecord(doc, NOUN, b, `benchmarks[${i}]`), data))
    }),
}
