/**
 * `llama-bench -o json` (a JSON array of tests; `-o jsonl` writes one test per line). Keys as ggml-org/llama.cpp
 * `tools/llama-bench/llama-bench.cpp` (`test::get_fields`, `json_printer`) writes them: the configuration
 * (`model_filename`, `model_type`, `n_gpu_layers`, `flash_attn`, `type_k`, …, which changed between builds:
 * older ones have `cuda`/`metal`/`gpu_blas` flags where newer ones have `backends`, and no `n_depth`), the test
 * (`n_prompt`, `n_gen`, `n_depth`), and its speed: `avg_ts`/`stddev_ts` over the repetitions, the raw
 * `samples_ts` (and `samples_ns`) per repetition in builds that write them. A test is one request of `n_prompt`
 * prompt tokens (`pp`), `n_gen` generated tokens after a one-token prompt (`tg`), or both (`pg`); t/s is the
 * test's tokens over its time. Each repetition becomes a round. `n_prompt` and `n_gen` are the test's own parameters
 * (llama-bench evaluates exactly that many tokens, no end of sequence stops it), so a test names its request and
 * its scenario (`pp512`, `tg128`) and takes no request options.
 */
import { ConfigError } from '../core/errors.js'
import { describe } from '../core/stats.js'
import { ToolRecord } from './field-reader.js'
import { baseName } from './serving.js'
import type { Document, Figures, IngestFormat, ToolRun } from './types.js'

const NOUN = 'a llama-bench test'

/** Keys of the test and its result; every other key is configuration. */
const TEST_KEYS = new Set([
  'n_prompt',
  'n_gen',
  'n_depth',
  'test_time',
  'avg_ns',
  'stddev_ns',
  'avg_ts',
  'stddev_ts',
  'samples_ns',
  'samples_ts',
])
/** Configuration that says where it ran, not what ran: never part of a target name. */
const HOST_KEYS = new Set([
  'build_commit',
  'build_number',
  'cpu_info',
  'gpu_info',
  'model_filename',
  'model_type',
  'model_size',
  'model_n_params',
])

/** The tests of a file: the elements of its array, or one object per line. */
function tests(docs: readonly Document[]): ToolRecord[] {
  return docs.flatMap((doc) =>
    Array.isArray(doc.value)
      ? doc.value.map((value, i) => new ToolRecord(doc, NOUN, value, `test ${i + 1}`))
      : [new ToolRecord(doc, NOUN)],
  )
}

/** Configuration keys whose value differs between the file's tests: they tell its targets apart. */
function varying(records: readonly ToolRecord[]): string[] {
  const keys = new Set(records.flatMap((r) => r.keys()))
  return [...keys]
    .filter(
      (k) => !TEST_KEYS.has(k) && !HOST_KEYS.has(k) && new Set(records.map((r) => JSON.stringify(r.raw(k)))).size > 1,
    )
    .sort()
}

/** Tokens per second of each repetition: `samples_ts`, else from `samples_ns`, else the one average. */
function samples(record: ToolRecord, tokens: number): { values: number[]; raw: boolean } {
  const ts = record.numbers('samples_ts')
  if (ts?.length) return { values: ts, raw: true }
  const ns = record.numbers('samples_ns')
  if (ns?.length) return { values: ns.map((n) => (tokens * 1e9) / n), raw: true }
  return { values: [record.num('avg_ts')], raw: false }
}

const one = (value: number) => describe([value])

/** Our figures of one repetition at `ts` tokens per second. */
function figures(prompt: number, gen: number, ts: number): Figures {
  const seconds = (prompt + gen) / ts
  const common: Figures = { e2e_ms: one(seconds * 1000), total_tps: ts, request_tps: 1 / seconds, failed_share: 0 }
  if (gen === 0) return { ...common, prefill_tps: one(ts) }
  if (prompt > 0) return { ...common, output_tps: gen / seconds }
  return { ...common, decode_tps: one(ts), tpot_ms: one(1000 / ts), output_tps: ts, per_user_tps: ts }
}

function testName(prompt: number, gen: number, depth: number): string {
  const name = prompt && gen ? `pp${prompt}+tg${gen}` : prompt ? `pp${prompt}` : `tg${gen}`
  return depth ? `${name}@d${depth}` : name
}

function runs(record: ToolRecord, distinguishing: readonly string[]): ToolRun[] {
  const prompt = record.num('n_prompt')
  const gen = record.num('n_gen')
  if (prompt + gen <= 0) record.fail('`n_prompt` and `n_gen` are both 0')
  const depth = record.opt('n_depth') ?? 0
  const model = record.str('model_filename') ?? null
  const name = model ? baseName(model).replace(/\.gguf$/i, '') : 'model'
  const config = distinguishing.map((k) => `${k}=${JSON.stringify(record.raw(k))}`)
  const { values, raw } = samples(record, prompt + gen)
  const commit = record.str('build_commit')
  const unmapped = [
    'ttft_ms, itl_ms: not measured (no streaming)',
    ...(gen > 0 && prompt === 0 ? ['tpot_ms: generation time / n_gen (the first token counted like the rest)'] : []),
    ...(raw ? [] : ['no samples_ts in this build: one round from avg_ts']),
  ]
  return values.map((ts) => ({
    where: record.where,
    file: record.doc.file,
    target: [`llama-bench-${name}`, ...config].join(','),
    model,
    requested: {
      inputTokens: prompt,
      outputTokens: gen,
      concurrency: 1,
      requests: 1,
      rate: null,
      name: testName(prompt, gen, depth),
    },
    requests: 1,
    errors: 0,
    durationMs: ((prompt + gen) / ts) * 1000,
    figures: figures(prompt, gen, ts),
    achieved: { promptTokens: { min: prompt, max: prompt }, outputTokens: { min: gen, max: gen } },
    means: { promptTokens: prompt, outputTokens: gen },
    unmapped,
    version: commit
      ? `llama.cpp ${commit}${record.opt('build_number') ? ` (${record.opt('build_number')})` : ''}`
      : undefined,
  }))
}

export const llamaBench: IngestFormat = {
  name: 'llama-bench',
  noun: NOUN,
  parse(docs) {
    const records = tests(docs)
    if (!records.length) throw new ConfigError([`${docs[0]?.file ?? 'input'}:1: not ${NOUN}: an empty list`])
    const distinguishing = varying(records)
    return records.flatMap((r) => runs(r, distinguishing))
  },
}
