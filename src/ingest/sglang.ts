/**
 * SGLang's `python -m sglang.bench_serving --output-file F`: it always appends one JSON object per line, and
 * Python's `json.dumps` writes the default `request_rate` as a bare `Infinity` (read.ts). Keys as
 * sgl-project/sglang `python/sglang/bench_serving.py` writes them: `completed`, `duration` (s),
 * `total_input_tokens`, `total_output_tokens`, `request_throughput`, `input_throughput`, `output_throughput`,
 * `total_throughput` (newer builds), `max_concurrency`, the per-metric statistics (serving.ts) for `ttft`, `tpot`,
 * `itl` and `e2e_latency` (vLLM's `e2el`), with `p90_*` in newer builds. It counts no failed requests.
 *
 * The request, from the same dict's "Arguments" part: `dataset_name`, `request_rate`, `max_concurrency`,
 * `random_input_len`, `random_output_len`, `random_range_ratio` and `sharegpt_output_len`. The `random_*` lengths
 * are written whatever the dataset (they are the options' defaults otherwise), so they are the request only for a
 * `random…` dataset; `sample_random_requests` draws each request's lengths uniformly from
 * [len × random_range_ratio, len], so below a ratio of 1 the lengths are a spread, not one value. For `sharegpt`,
 * `sharegpt_output_len` (when set) fixes the output length and the prompts are the dataset's. The dict has no
 * `num_prompts`: without `max_concurrency` every request may be in flight, and the completed count stands in.
 */
import { ToolRecord } from './field-reader.js'
import { baseName, decodeFromTpot, perRequest, requestRate, servingStats } from './serving.js'
import type { Document, Figures, IngestFormat, Requested, ToolRun } from './types.js'

const NOUN = 'an SGLang bench_serving result'

function requested(record: ToolRecord, completed: number): Requested {
  const dataset = record.str('dataset_name')
  const random = dataset?.startsWith('random') ?? false
  const ratio = random ? record.opt('random_range_ratio') : undefined
  const spread = ratio !== undefined && ratio < 1 ? `random_range_ratio ${ratio}` : undefined
  return {
    inputTokens: random ? record.count('random_input_len') : undefined,
    outputTokens: random
      ? record.count('random_output_len')
      : dataset === 'sharegpt'
        ? record.count('sharegpt_output_len')
        : undefined,
    concurrency: record.opt('max_concurrency') ?? completed,
    requests: completed,
    rate: requestRate(record),
    ...(spread ? { spread: { input: spread, output: spread }, variant: `ratio${ratio}` } : {}),
  }
}

export function sglangRun(record: ToolRecord): ToolRun {
  record.num('mean_ttft_ms')
  const completed = record.num('completed')
  const output = record.num('output_throughput')
  const concurrency = record.opt('max_concurrency')
  const input = record.opt('input_throughput')
  const tpot = servingStats(record, 'tpot')
  const figures: Figures = {
    ttft_ms: servingStats(record, 'ttft'),
    tpot_ms: tpot,
    itl_ms: servingStats(record, 'itl'),
    e2e_ms: servingStats(record, 'e2e_latency'),
    decode_tps: decodeFromTpot(tpot),
    output_tps: output,
    // Both throughputs divide by the same duration, so their sum is the total one.
    total_tps: record.opt('total_throughput') ?? (input === undefined ? undefined : input + output),
    request_tps: record.opt('request_throughput'),
    per_user_tps: concurrency ? output / concurrency : undefined,
  }
  const means = {
    promptTokens: perRequest(record.opt('total_input_tokens'), completed),
    outputTokens: perRequest(record.opt('total_output_tokens'), completed),
  }
  const model = record.str('model_id') ?? record.str('tokenizer_id') ?? null
  return {
    where: record.where,
    file: record.doc.file,
    target: `sglang${model ? `-${baseName(model)}` : ''}`,
    model,
    requested: requested(record, completed),
    requests: completed,
    errors: null,
    durationMs: record.num('duration') * 1000,
    figures,
    achieved: {
      promptTokens: { min: means.promptTokens, max: means.promptTokens },
      outputTokens: { min: means.outputTokens, max: means.outputTokens },
    },
    means,
    unmapped: [
      'failed_share: SGLang counts no failed requests',
      ...(concurrency
        ? []
        : ['per_user_tps: no max_concurrency', 'concurrency: no max_concurrency, the completed requests']),
      'achieved lengths: the mean per request only',
    ],
  }
}

export const sglang: IngestFormat = {
  name: 'sglang',
  noun: NOUN,
  lengthsHint: 'or run a random dataset (its random_input_len/random_output_len are recorded)',
  parse: (docs: readonly Document[]) => docs.map((doc) => sglangRun(new ToolRecord(doc, NOUN))),
}
