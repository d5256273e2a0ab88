/**
 * SGLang's `python -m sglang.bench_serving --output-file F`: it always appends one JSON object per line, and
 * Python's `json.dumps` writes the default `request_rate` as a bare `Infinity` (read.ts). Keys as
 * sgl-project/sglang `python/sglang/bench_serving.py` writes them: `completed`, `duration` (s),
 * `total_input_tokens`, `total_output_tokens`, `request_throughput`, `input_throughput`, `output_throughput`,
 * `total_throughput` (newer builds), `max_concurrency`, the per-metric statistics (serving.ts) for `ttft`, `tpot`,
 * `itl` and `e2e_latency` (vLLM's `e2el`), with `p90_*` in newer builds. It counts no failed requests.
 */
import { ToolRecord } from './field-reader.js'
import { baseName, decodeFromTpot, perRequest, requestRate, scenarioId, servingStats } from './serving.js'
import type { Document, Figures, IngestFormat, IngestedRun } from './types.js'

const NOUN = 'an SGLang bench_serving result'

export function sglangRun(record: ToolRecord): IngestedRun {
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
  const workload = {
    inputTokens: perRequest(record.opt('total_input_tokens'), completed),
    outputTokens: perRequest(record.opt('total_output_tokens'), completed),
    concurrency: concurrency ?? Math.round(record.opt('concurrency') ?? completed),
    requests: completed,
    rate: requestRate(record),
  }
  const model = record.str('model_id') ?? record.str('tokenizer_id') ?? null
  return {
    where: record.where,
    file: record.doc.file,
    target: `sglang${model ? `-${baseName(model)}` : ''}`,
    scenario: scenarioId(workload),
    model,
    workload,
    requests: completed,
    errors: null,
    durationMs: record.num('duration') * 1000,
    figures,
    achieved: {
      promptTokens: { min: workload.inputTokens, max: workload.inputTokens },
      outputTokens: { min: workload.outputTokens, max: workload.outputTokens },
    },
    unmapped: [
      'failed_share: SGLang counts no failed requests',
      ...(concurrency ? [] : ['per_user_tps: no max_concurrency', 'concurrency: the measured mean in flight']),
      'achieved lengths: the mean per request only',
    ],
  }
}

export const sglang: IngestFormat = {
  name: 'sglang',
  noun: NOUN,
  parse: (docs: readonly Document[]) => docs.map((doc) => sglangRun(new ToolRecord(doc, NOUN))),
}
