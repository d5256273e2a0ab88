/**
 * `vllm bench serve --save-result` (one JSON object; `--append-result` appends one per line). Keys as
 * vllm-project/vllm `vllm/benchmarks/serve.py` writes them: `completed`, `failed`, `duration` (s),
 * `total_input_tokens`, `total_output_tokens`, `request_throughput`, `output_throughput`, `total_token_throughput`,
 * the per-metric statistics (serving.ts) for `ttft`, `tpot`, `itl` and `e2el`, `max_concurrency`, `num_prompts` and
 * `request_rate` (the string "inf" for everything at once). Older files name goodput `"request_goodput:"` (with
 * the colon) and may lack `failed`; neither is a figure we gate. With `--save-detailed` the per-request arrays
 * `ttfts`, `latencies` (s), `itls` (s, per request), `input_lens`, `output_lens` and `errors` fill in the
 * statistics the keys lack (p90, min, max).
 */
import type { Stats } from '../core/measurements.js'
import { describe, extent } from '../core/stats.js'
import { ToolRecord } from './field-reader.js'
import { baseName, decodeFromTpot, perRequest, requestRate, scenarioId, servingStats } from './serving.js'
import type { Document, Figures, IngestFormat, IngestedRun } from './types.js'

const NOUN = 'a vLLM bench result'

/** Per-request values of the successful requests, in ms, from `--save-detailed` arrays; undefined without them. */
function detailed(
  record: ToolRecord,
): Partial<Record<'ttft' | 'tpot' | 'itl' | 'e2e' | 'input' | 'output', number[]>> | undefined {
  const ttfts = record.numbers('ttfts')
  const latencies = record.numbers('latencies')
  const outputs = record.numbers('output_lens')
  if (!ttfts || !latencies) return undefined
  const errors = record.raw('errors')
  const ok = (i: number) => !Array.isArray(errors) || errors[i] === '' || errors[i] === null
  const indices = ttfts.map((_, i) => i).filter(ok)
  const itls = record.raw('itls')
  return {
    ttft: indices.map((i) => ttfts[i] * 1000),
    e2e: indices.map((i) => latencies[i] * 1000),
    itl: Array.isArray(itls)
      ? indices.flatMap((i) => (Array.isArray(itls[i]) ? (itls[i] as number[]).map((s) => s * 1000) : []))
      : undefined,
    tpot: outputs
      ? indices.filter((i) => outputs[i] > 1).map((i) => ((latencies[i] - ttfts[i]) * 1000) / (outputs[i] - 1))
      : undefined,
    input: record.numbers('input_lens')?.filter((_, i) => ok(i)),
    output: outputs?.filter((_, i) => ok(i)),
  }
}

/** The tool's own statistics, with what they lack taken from the per-request values when there are some. */
function filled(stats: Partial<Stats>, values: number[] | undefined): Partial<Stats> {
  if (!values?.length) return stats
  const all = describe(values)
  return Object.fromEntries((Object.keys(all) as (keyof Stats)[]).map((k) => [k, stats[k] ?? all[k]]))
}

const range = (values: number[] | undefined, fallback: number) =>
  values?.length ? extent(values) : { min: fallback, max: fallback }

export function vllmRun(record: ToolRecord): IngestedRun {
  record.num('mean_ttft_ms')
  const completed = record.num('completed')
  const failed = record.opt('failed')
  const concurrency = record.opt('max_concurrency')
  const perUser = concurrency ? record.num('output_throughput') / concurrency : undefined
  const samples = detailed(record)
  const tpot = filled(servingStats(record, 'tpot'), samples?.tpot)
  const figures: Figures = {
    ttft_ms: filled(servingStats(record, 'ttft'), samples?.ttft),
    tpot_ms: tpot,
    itl_ms: filled(servingStats(record, 'itl'), samples?.itl),
    e2e_ms: filled(servingStats(record, 'e2el'), samples?.e2e),
    decode_tps: decodeFromTpot(tpot),
    output_tps: record.num('output_throughput'),
    total_tps: record.opt('total_token_throughput'),
    request_tps: record.opt('request_throughput'),
    per_user_tps: perUser,
    failed_share: failed === undefined ? undefined : failed / Math.max(completed + failed, 1),
  }
  const workload = {
    inputTokens: perRequest(record.opt('total_input_tokens'), completed),
    outputTokens: perRequest(record.opt('total_output_tokens'), completed),
    concurrency: concurrency ?? record.opt('num_prompts') ?? completed + (failed ?? 0),
    requests: record.opt('num_prompts') ?? completed + (failed ?? 0),
    rate: requestRate(record),
  }
  const label = record.str('label')
  const model = record.str('model_id') ?? null
  const unmapped = [
    ...(failed === undefined ? ['failed_share: no failed count'] : []),
    ...(perUser === undefined ? ['per_user_tps: no max_concurrency'] : []),
    ...(samples?.input ? [] : ['achieved lengths: the mean per request only']),
  ]
  return {
    where: record.where,
    file: record.doc.file,
    target: label && label !== record.str('backend') ? label : `vllm${model ? `-${baseName(model)}` : ''}`,
    scenario: scenarioId(workload),
    model,
    workload,
    requests: completed + (failed ?? 0),
    errors: failed ?? null,
    durationMs: record.num('duration') * 1000,
    figures,
    achieved: {
      promptTokens: range(samples?.input, workload.inputTokens),
      outputTokens: range(samples?.output, workload.outputTokens),
    },
    unmapped,
  }
}

export const vllm: IngestFormat = {
  name: 'vllm',
  noun: NOUN,
  parse: (docs: readonly Document[]) => docs.map((doc) => vllmRun(new ToolRecord(doc, NOUN))),
}
