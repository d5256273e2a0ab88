/**
 * AIPerf's `profile_export_aiperf.json` (and GenAI-Perf's `profile_export_genai_perf.json`, the same shape): one
 * object whose metrics sit at the top level, each `{ unit, avg, p50, p90, p99, min, max, std, … }`. Keys as
 * ai-dynamo/aiperf writes them (`aiperf/metrics/types/`, the JSON exporter; `docs/metrics_reference.md`):
 * `time_to_first_token`, `inter_token_latency` — (last − first token) / (output tokens − 1), which is vLLM's and
 * our TPOT, not our ITL —, `inter_chunk_latency` (gaps between chunks, our ITL) where written, `request_latency`,
 * `output_token_throughput`, `total_token_throughput` where written, `request_throughput`, `request_count`,
 * `error_request_count` (absent when nothing failed), `input_sequence_length`, `output_sequence_length`,
 * `benchmark_duration`, and the run's `input_config` (`loadgen.concurrency`, `loadgen.request_rate`).
 *
 * The request: `input_config` is the user's configuration as set (`aiperf/exporters/json_exporter.py` dumps it with
 * `exclude_unset`), so it holds what the command asked for and nothing it left at a default:
 * `input.prompt.input_tokens.mean` (`--isl`) and `input.prompt.output_tokens.mean` (`--osl`), with a `stddev`
 * making either a spread (`aiperf/common/config/prompt_config.py`), and `loadgen.concurrency`,
 * `loadgen.request_rate`, `loadgen.request_count`. Without `--osl` the model decides when to stop, and no output
 * length was asked for.
 */
import type { Stats } from '../core/measurements.js'
import { ToolRecord } from './field-reader.js'
import type { Document, Figures, IngestFormat, Requested, ToolRun } from './types.js'

const NOUN = 'an AIPerf profile export'

/** Milliseconds per unit of a time metric. */
const MS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, us: 1e-3, ns: 1e-6 }

function stats(record: ToolRecord, key: string): Partial<Stats> | undefined {
  const metric = record.sub(key)
  if (!metric) return undefined
  const unit = metric.str('unit') ?? 'ms'
  const scale =
    MS[unit] ?? metric.fail(`\`unit\`: expected one of ${Object.keys(MS).join(', ')}, got ${JSON.stringify(unit)}`)
  const at = (k: string) => {
    const v = metric.opt(k)
    return v === undefined ? undefined : v * scale
  }
  return {
    mean: at('avg'),
    p50: at('p50'),
    p90: at('p90'),
    p99: at('p99'),
    std: at('std'),
    min: at('min'),
    max: at('max'),
  }
}

const avg = (record: ToolRecord, key: string): number | undefined => record.sub(key)?.opt('avg')

function requested(input: ToolRecord | undefined, sent: number): Requested {
  const loadgen = input?.sub('loadgen')
  const prompt = input?.sub('input')?.sub('prompt')
  const isl = prompt?.sub('input_tokens')
  const osl = prompt?.sub('output_tokens')
  const spread = (tokens: ToolRecord | undefined) =>
    tokens?.opt('stddev') ? `stddev ${tokens.opt('stddev')}` : undefined
  const inputSpread = spread(isl)
  const outputSpread = spread(osl)
  return {
    inputTokens: isl?.count('mean'),
    outputTokens: osl?.count('mean'),
    concurrency: loadgen?.opt('concurrency') ?? 1,
    requests: loadgen?.count('request_count') ?? sent,
    rate: loadgen?.opt('request_rate') ?? null,
    ...(inputSpread || outputSpread ? { spread: { input: inputSpread, output: outputSpread } } : {}),
  }
}

function aiperfRun(record: ToolRecord): ToolRun {
  if (!record.has('time_to_first_token')) record.fail('missing `time_to_first_token`')
  const ttft = stats(record, 'time_to_first_token')!
  const tpot = stats(record, 'inter_token_latency') ?? {}
  const itl = stats(record, 'inter_chunk_latency')
  const ok = avg(record, 'request_count') ?? record.fail('missing `request_count`')
  const failed = avg(record, 'error_request_count') ?? 0
  const loadgen = record.sub('input_config')?.sub('loadgen')
  const concurrency = loadgen?.opt('concurrency')
  const output = avg(record, 'output_token_throughput')
  const figures: Figures = {
    ttft_ms: ttft,
    tpot_ms: tpot,
    itl_ms: itl,
    e2e_ms: stats(record, 'request_latency'),
    decode_tps: {
      mean: tpot.mean ? 1000 / tpot.mean : undefined,
      p50: tpot.p50 ? 1000 / tpot.p50 : undefined,
      min: tpot.max ? 1000 / tpot.max : undefined,
      max: tpot.min ? 1000 / tpot.min : undefined,
    },
    output_tps: output,
    total_tps: avg(record, 'total_token_throughput'),
    request_tps: avg(record, 'request_throughput'),
    per_user_tps: concurrency && output !== undefined ? output / concurrency : undefined,
    failed_share: failed / Math.max(ok + failed, 1),
  }
  const isl = record.sub('input_sequence_length')
  const osl = record.sub('output_sequence_length')
  const means = { promptTokens: isl?.opt('avg') ?? 0, outputTokens: osl?.opt('avg') ?? 0 }
  const range = (r: ToolRecord | undefined, fallback: number) => ({
    min: r?.opt('min') ?? fallback,
    max: r?.opt('max') ?? fallback,
  })
  return {
    where: record.where,
    file: record.doc.file,
    target: 'aiperf',
    model: null,
    requested: requested(record.sub('input_config'), ok + failed),
    requests: ok + failed,
    errors: failed,
    durationMs: (avg(record, 'benchmark_duration') ?? 0) * 1000,
    figures,
    achieved: { promptTokens: range(isl, means.promptTokens), outputTokens: range(osl, means.outputTokens) },
    means,
    unmapped: [
      ...(itl ? [] : ['itl_ms: no inter_chunk_latency (inter_token_latency is our TPOT)']),
      ...(figures.total_tps === undefined ? ['total_tps: no total_token_throughput'] : []),
      ...(concurrency ? [] : ['concurrency: not in input_config (1 assumed)', 'per_user_tps: no concurrency']),
    ],
    version: record.str('aiperf_version') ? `aiperf ${record.str('aiperf_version')}` : undefined,
  }
}

export const aiperf: IngestFormat = {
  name: 'aiperf',
  noun: NOUN,
  lengthsHint: 'or run it with --isl N --osl N (recorded in input_config)',
  parse: (docs: readonly Document[]) => docs.map((doc) => aiperfRun(new ToolRecord(doc, NOUN))),
}
