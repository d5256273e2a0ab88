/**
 * `vllm bench serve --save-result` (one JSON object; `--append-result` appends one per line). Keys as
 * vllm-project/vllm `vllm/benchmarks/serve.py` writes them: `completed`, `failed`, `duration` (s),
 * `total_input_tokens`, `total_output_tokens`, `request_throughput`, `output_throughput`, `total_token_throughput`,
 * the per-metric statistics (serving.ts) for `ttft`, `tpot`, `itl` and `e2el`, `max_concurrency`, `num_prompts` and
 * `request_rate` (the string "inf" for everything at once). Older files name goodput `"request_goodput:"` (with
 * the colon) and may lack `failed`; neither is a figure we gate. With `--save-detailed` the per-request arrays
 * `ttfts`, `latencies` (s), `itls` (s, per request), `input_lens`, `output_lens` and `errors` fill in the
 * statistics the keys lack (p90, min, max).
 *
 * The request: `num_prompts`, `max_concurrency` and `request_rate` are the command's own options. The requested
 * lengths are not recorded (`--random-input-len`/`--random-output-len`, `--input-len`/`--output-len` are not
 * written), but `--metadata KEY=VALUE …` pairs are, at the top level as strings (serve.py `main_async`): the
 * lengths are read from `random_input_len`/`random_output_len`, or `input_len`/`output_len`, named after the
 * options that set them.
 */
import type { Stats } from '../core/measurements.js'
import { describe, extent } from '../core/stats.js'
import { ToolRecord } from './field-reader.js'
import { baseName, decodeFromTpot, perRequest, requestRate, servingStats } from './serving.js'
import type { Document, Figures, IngestFormat, Requested, ToolRun } from './types.js'

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

/** Metadata keys that may carry a requested length, as `--metadata` writes them (strings) or as numbers. */
const LENGTH_KEYS = { input: ['random_input_len', 'input_len'], output: ['random_output_len', 'output_len'] } as const

function metadataLength(record: ToolRecord, which: 'input' | 'output'): number | undefined {
  const found: Array<[string, number]> = []
  for (const key of LENGTH_KEYS[which]) {
    const raw = record.raw(key)
    if (raw === undefined || raw === null) continue
    const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
      record.fail(`\`${key}\`: expected a whole number of tokens above 0, got ${JSON.stringify(raw)}`)
    found.push([key, value])
  }
  if (found.length === 2 && found[0][1] !== found[1][1])
    record.fail(`\`${found[0][0]}\` (${found[0][1]}) and \`${found[1][0]}\` (${found[1][1]}) disagree`)
  return found[0]?.[1]
}

function requested(record: ToolRecord, completed: number, failed: number | undefined): Requested {
  const sent = record.opt('num_prompts') ?? completed + (failed ?? 0)
  return {
    inputTokens: metadataLength(record, 'input'),
    outputTokens: metadataLength(record, 'output'),
    concurrency: record.opt('max_concurrency') ?? sent,
    requests: sent,
    rate: requestRate(record),
  }
}

export function vllmRun(record: ToolRecord): ToolRun {
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
  const means = {
    promptTokens: perRequest(record.opt('total_input_tokens'), completed),
    outputTokens: perRequest(record.opt('total_output_tokens'), completed),
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
    model,
    requested: requested(record, completed, failed),
    requests: completed + (failed ?? 0),
    errors: failed ?? null,
    durationMs: record.num('duration') * 1000,
    figures,
    achieved: {
      promptTokens: range(samples?.input, means.promptTokens),
      outputTokens: range(samples?.output, means.outputTokens),
    },
    means,
    unmapped,
  }
}

export const vllm: IngestFormat = {
  name: 'vllm',
  noun: NOUN,
  lengthsHint: 'or save them with --metadata random_input_len=N random_output_len=N',
  parse: (docs: readonly Document[]) => docs.map((doc) => vllmRun(new ToolRecord(doc, NOUN))),
}
