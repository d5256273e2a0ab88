/**
 * Each format's cells are keyed by what the file records of the request, never by the lengths the run achieved:
 * a run whose outputs average one token short of the request (or whose prompts one token long) is the same cell,
 * its workload the requested one, and the achieved lengths are only checked against the request. A file that does
 * not record the requested lengths is refused unless --input-tokens/--output-tokens or --scenario say it.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/core/errors.js'
import type { CellResult } from '../../src/core/results.js'
import { ingestFormat, ingestText, ingestedCells, type RequestOptions } from '../../src/ingest/index.js'
import { placeRuns } from '../../src/ingest/requested.js'
import { ROOT } from '../helpers/root.js'

type Row = Record<string, any>
const fixture = async (name: string) => readFile(join(ROOT, 'fixtures/ingest', name), 'utf8')
const json = async (name: string) => JSON.parse(await fixture(name)) as Row
/** The SGLang fixture's lines, its bare Infinity read as the string vLLM writes. */
const sglangLines = async () =>
  (await fixture('sglang-bench-serving.jsonl'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l.replace('Infinity', '"inf"')) as Row)

/** The cells of one file's text, as `ingest` makes them. */
function cells(format: string, doc: unknown, options: RequestOptions = {}, file = 'runs/a.json'): CellResult[] {
  const text = typeof doc === 'string' ? doc : JSON.stringify(doc)
  const f = ingestFormat(format)
  return ingestedCells(f.name, placeRuns(f, ingestText(f, text, file), options))
}

function refusal(format: string, doc: unknown, options: RequestOptions = {}): string {
  try {
    cells(format, doc, options)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).problems.join('\n')
  }
  throw new Error('expected the file to be refused')
}

describe('vllm: the lengths from --metadata, or from the options', () => {
  it('127 of 128 output tokens: the requested id and workload, within the tolerance, unflagged', async () => {
    const raw = await json('vllm-save-result.json')
    const [cell] = cells('vllm', { ...raw, total_output_tokens: 127 * raw.completed })
    expect(cell.id).toBe('vllm-Qwen3-8B/in512-out128-c8')
    expect(cell.workload).toEqual({ inputTokens: 512, outputTokens: 128, concurrency: 8, requests: 64, rate: null })
    expect(cell.rounds[0].achieved.outputTokens).toEqual({ min: 127, max: 127 })
    expect(cell.flags).toEqual([])
  })

  it.each([
    [126.6, ['lengths-missed: output 126.6/128']],
    [126.72, []],
    [129.28, []],
    [129.4, ['lengths-missed: output 129.4/128']],
  ])('a mean of %s output tokens against 128 requested: %j', async (mean, flags) => {
    const raw = await json('vllm-save-result.json')
    const [cell] = cells('vllm', { ...raw, total_output_tokens: mean * raw.completed })
    expect(cell.id).toBe('vllm-Qwen3-8B/in512-out128-c8')
    expect(cell.flags).toEqual(flags)
  })

  it('reads input_len/output_len too, as numbers or --metadata strings', async () => {
    const raw = await json('vllm-save-result.json')
    delete raw.random_input_len
    delete raw.random_output_len
    const [cell] = cells('vllm', { ...raw, input_len: 512, output_len: ' 128 ' })
    expect(cell.id).toBe('vllm-Qwen3-8B/in512-out128-c8')
  })

  it.each([
    [{ random_output_len: 'long' }, '`random_output_len`: expected a whole number of tokens above 0, got "long"'],
    [{ random_output_len: '0' }, '`random_output_len`: expected a whole number of tokens above 0, got "0"'],
    [{ output_len: '64' }, '`random_output_len` (128) and `output_len` (64) disagree'],
  ])('refuses metadata %j', async (metadata, problem) => {
    const raw = await json('vllm-save-result.json')
    expect(refusal('vllm', { ...raw, ...metadata })).toBe(`runs/a.json:1: not a vLLM bench result: ${problem}`)
  })

  it('without the metadata: refused, naming the file and what to pass; the options then give the lengths', async () => {
    const raw = await json('vllm-save-result.json')
    delete raw.random_input_len
    delete raw.random_output_len
    expect(refusal('vllm', raw)).toBe(
      'runs/a.json:1: a vLLM bench result does not record the requested input and output lengths; ' +
        'pass --input-tokens N --output-tokens N (or --scenario ID), ' +
        'or save them with --metadata random_input_len=N random_output_len=N',
    )
    const [cell] = cells(
      'vllm',
      { ...raw, total_output_tokens: 127 * raw.completed },
      { inputTokens: 512, outputTokens: 128 },
    )
    expect(cell.id).toBe('vllm-Qwen3-8B/in512-out128-c8')
    expect(cell.workload.outputTokens).toBe(128)
    expect(cell.flags).toEqual([])
  })

  it('refuses an option that contradicts what the file records', async () => {
    const raw = await json('vllm-save-result.json')
    expect(refusal('vllm', raw, { outputTokens: 256 })).toBe(
      '--output-tokens 256: runs/a.json:1 records 128 output tokens requested',
    )
    expect(cells('vllm', raw, { outputTokens: 128 })[0].id).toBe('vllm-Qwen3-8B/in512-out128-c8')
  })

  it('every line of an --append-result file without them is one problem, named once', async () => {
    const line = (await fixture('vllm-append-result.jsonl')).trim().split('\n')[0]
    expect(refusal('vllm', `${line}\n`.repeat(50))).toMatch(/^runs\/a\.json:1: a vLLM bench result does not record/)
    expect(refusal('vllm', `${line}\n`.repeat(50)).split('\n')).toHaveLength(1)
  })
})

describe('sglang: random_input_len/random_output_len of a random dataset', () => {
  it('255 of 256 output tokens and 1025 of 1024 prompt tokens: the requested id, unflagged', async () => {
    const [first, second] = await sglangLines()
    const lines = [
      first,
      { ...second, total_output_tokens: 255 * second.completed, total_input_tokens: 1025 * second.completed },
    ]
    const [cell] = cells('sglang', lines.map((l) => JSON.stringify(l)).join('\n'))
    expect(cell.id).toBe('sglang/in1024-out256-c16')
    expect(cell.rounds).toHaveLength(2)
    expect(cell.workload).toEqual({ inputTokens: 1024, outputTokens: 256, concurrency: 16, requests: 200, rate: null })
    expect(cell.flags).toEqual([])
  })

  it('a sharegpt run: the random_* defaults are not its request; sharegpt_output_len is, the prompt length is not', async () => {
    const [line] = await sglangLines()
    const sharegpt = { ...line, dataset_name: 'sharegpt' }
    expect(refusal('sglang', sharegpt)).toBe(
      'runs/a.json:1: an SGLang bench_serving result does not record the requested input and output lengths; ' +
        'pass --input-tokens N --output-tokens N (or --scenario ID), ' +
        'or run a random dataset (its random_input_len/random_output_len are recorded)',
    )
    expect(refusal('sglang', { ...sharegpt, sharegpt_output_len: 256 })).toMatch(
      /does not record the requested input length; pass --input-tokens N \(or --scenario ID\)/,
    )
    expect(cells('sglang', { ...sharegpt, sharegpt_output_len: 256 }, { inputTokens: 1024 })[0].id).toBe(
      'sglang/in1024-out256-c16',
    )
  })

  it('a range ratio below 1 is a spread: its own scenario, the lengths not held against it', async () => {
    const [line] = await sglangLines()
    const ranged = { ...line, random_range_ratio: 0.5, total_output_tokens: 192 * line.completed }
    const [cell] = cells('sglang', ranged)
    expect(cell.id).toBe('sglang/in1024-out256-c16-ratio0.5')
    expect(cell.flags).toEqual([])
    expect(cell.ingested?.unmapped).toContain('achieved lengths: output not checked, a spread (random_range_ratio 0.5)')
  })

  it('without max_concurrency the completed requests are the concurrency, not the measured mean in flight', async () => {
    const [line] = await sglangLines()
    const [cell] = cells('sglang', { ...line, max_concurrency: null, concurrency: 157.3 })
    expect(cell.id).toBe('sglang/in1024-out256-c200')
  })
})

describe('guidellm: the data spec of the report args', () => {
  it('achieved means of 511.6 → 255.4 are still the requested prompt_tokens=512,output_tokens=256', async () => {
    const doc = await json('guidellm-benchmarks.json')
    const metrics = doc.benchmarks[1].metrics
    metrics.prompt_token_count.successful.mean = 511.6
    metrics.output_token_count.successful.mean = 255.4
    const ids = cells('guidellm', doc).map((c) => c.id)
    expect(ids).toEqual(['guidellm/in512-out256-c1-concurrent', 'guidellm/in512-out256-c8-concurrent'])
    expect(cells('guidellm', doc)[1].flags).toEqual([])
    metrics.output_token_count.successful.mean = 200
    expect(cells('guidellm', doc)[1].flags).toEqual(['lengths-missed: output 200/256'])
  })

  it('reads the spec as a list, as JSON, and from an older release per benchmark', async () => {
    const doc = await json('guidellm-benchmarks.json')
    const ids = (value: unknown) => cells('guidellm', { ...doc, args: { ...doc.args, data: value } }).map((c) => c.id)
    expect(ids(['prompt_tokens=512,output_tokens=256'])[0]).toBe('guidellm/in512-out256-c1-concurrent')
    expect(ids('{"prompt_tokens": 512, "output_tokens": 256}')[0]).toBe('guidellm/in512-out256-c1-concurrent')
    const older = {
      benchmarks: doc.benchmarks.map((b: Row) => ({
        ...b,
        request_loader: { data: 'prompt_tokens=512,output_tokens=256' },
      })),
    }
    expect(cells('guidellm', older).map((c) => c.id)[0]).toBe('guidellm/in512-out256-c1-concurrent')
  })

  it('a dataset records no lengths: refused; a stdev is a spread, not checked', async () => {
    const doc = await json('guidellm-benchmarks.json')
    expect(refusal('guidellm', { ...doc, args: { ...doc.args, data: ['ShareGPT_V3.json'] } })).toBe(
      'runs/a.json:1 (benchmarks[0]): a GuideLLM benchmark does not record the requested input and output lengths; ' +
        'pass --input-tokens N --output-tokens N (or --scenario ID), ' +
        'or benchmark synthetic data (--data prompt_tokens=N,output_tokens=N is recorded)',
    )
    const spread = { ...doc, args: { ...doc.args, data: 'prompt_tokens=512,prompt_tokens_stdev=64,output_tokens=256' } }
    const cell = cells('guidellm', spread)[0]
    expect(cell.id).toBe('guidellm/in512-out256-c1-concurrent')
    expect(cell.ingested?.unmapped).toContain('achieved lengths: prompt not checked, a spread (prompt_tokens_stdev 64)')
  })

  it('strategies: synchronous is one stream; a rate without max_concurrency leaves the concurrency out of the id', async () => {
    const doc = await json('guidellm-benchmarks.json')
    const [one] = doc.benchmarks
    const run = (strategy: Row) =>
      cells('guidellm', { ...doc, benchmarks: [{ ...one, config: { ...one.config, strategy } }] })[0]
    expect(run({ type_: 'synchronous' }).id).toBe('guidellm/in512-out256-c1-synchronous')
    const poisson = run({ type_: 'poisson', rate: 4 })
    expect(poisson.id).toBe('guidellm/in512-out256-r4-poisson')
    expect(poisson.ingested?.unmapped).toContain('concurrency: not bounded, the measured mean in flight')
  })
})

describe('aiperf: input_config.input.prompt of the profile export', () => {
  it('achieved averages of 1023.4 → 254.9 are still the requested --isl 1024 --osl 256', async () => {
    const raw = await json('aiperf-profile-export.json')
    raw.input_sequence_length = { ...raw.input_sequence_length, avg: 1023.4, min: 1020, max: 1024 }
    raw.output_sequence_length = { ...raw.output_sequence_length, avg: 254.9, min: 254, max: 256 }
    const [cell] = cells('aiperf', raw)
    expect(cell.id).toBe('aiperf/in1024-out256-c8')
    expect(cell.workload).toEqual({ inputTokens: 1024, outputTokens: 256, concurrency: 8, requests: 200, rate: null })
    expect(cell.flags).toEqual([])
    raw.output_sequence_length = { ...raw.output_sequence_length, avg: 180, min: 12, max: 256 }
    expect(cells('aiperf', raw)[0].flags).toEqual(['lengths-missed: output 12-256/256'])
  })

  it('without --osl no output length was requested: refused, naming that length only', async () => {
    const raw = await json('aiperf-profile-export.json')
    delete raw.input_config.input.prompt.output_tokens
    expect(refusal('aiperf', raw)).toBe(
      'runs/a.json:1: an AIPerf profile export does not record the requested output length; ' +
        'pass --output-tokens N (or --scenario ID), or run it with --isl N --osl N (recorded in input_config)',
    )
    expect(cells('aiperf', raw, { outputTokens: 256 })[0].id).toBe('aiperf/in1024-out256-c8')
  })

  it('a stddev is a spread, not checked', async () => {
    const raw = await json('aiperf-profile-export.json')
    raw.input_config.input.prompt.input_tokens.stddev = 100
    raw.input_sequence_length = { ...raw.input_sequence_length, avg: 1000, min: 800, max: 1300 }
    const [cell] = cells('aiperf', raw)
    expect(cell.id).toBe('aiperf/in1024-out256-c8')
    expect(cell.flags).toEqual([])
    expect(cell.ingested?.unmapped).toContain('achieved lengths: prompt not checked, a spread (stddev 100)')
  })
})

describe('llama-bench: each test names its request', () => {
  it('keeps its scenarios and takes no request options', async () => {
    const text = await fixture('llama-bench.json')
    expect(cells('llama-bench', text).map((c) => c.scenario)).toEqual(['pp512', 'tg128', 'pp512', 'tg128'])
    expect(cells('llama-bench', text).every((c) => c.flags.length === 0)).toBe(true)
    expect(refusal('llama-bench', text, { scenario: 'chat', outputTokens: 128 })).toBe(
      '--scenario, --output-tokens: not taken with --format llama-bench: each record (a llama-bench test) names its whole request, and its scenario after it',
    )
  })
})

describe('--scenario', () => {
  it('names the cell; a file recording the lengths still has them checked', async () => {
    const raw = await json('vllm-save-result.json')
    const [cell] = cells('vllm', { ...raw, total_output_tokens: 100 * raw.completed }, { scenario: 'chat' })
    expect(cell.id).toBe('vllm-Qwen3-8B/chat')
    expect(cell.workload.outputTokens).toBe(128)
    expect(cell.flags).toEqual(['lengths-missed: output 100/128'])
  })

  it('runs that differ only in achieved lengths nobody requested are one cell', async () => {
    const [line] = (await fixture('vllm-append-result.jsonl')).trim().split('\n')
    const raw = JSON.parse(line) as Row
    const lines = [raw, { ...raw, total_output_tokens: 255 * raw.completed }].map((l) => JSON.stringify(l)).join('\n')
    const [cell] = cells('vllm', lines, { scenario: 'chat' })
    expect(cell.id).toBe('vllm-Llama-3.1-8B-Instruct/chat')
    expect(cell.rounds).toHaveLength(2)
    expect(cell.workload.outputTokens).toBe(256)
    expect(cell.flags).toEqual([])
  })

  it('refuses an id that is not one, and runs of one target asked for different workloads', async () => {
    const raw = await json('vllm-save-result.json')
    expect(refusal('vllm', raw, { scenario: 'a/b' })).toBe(
      '--scenario "a/b": expected an id like chat (letters, digits, ., _ and -)',
    )
    const lines = [raw, { ...raw, max_concurrency: 16 }].map((l) => JSON.stringify(l)).join('\n')
    expect(refusal('vllm', lines, { scenario: 'chat' })).toBe(
      '--scenario chat: runs/a.json:1 (in512-out128-c8) and runs/a.json:2 (in512-out128-c16) were asked for different workloads; ingest them apart',
    )
  })
})
