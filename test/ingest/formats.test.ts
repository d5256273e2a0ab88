/**
 * Each tool's recorded result file reproduces its headline figures exactly in our metric names (mean, median and
 * p99 of TTFT, TPOT and ITL, output throughput), and each cell says what its tool could not give.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CellResult } from '../../src/core/results.js'
import { ONE_ROUND, ingestFiles } from '../../src/ingest/index.js'
import { ROOT } from '../helpers/root.js'

const FIXTURES = join(ROOT, 'fixtures/ingest')
const fixture = (name: string) => join(FIXTURES, name)
const json = async (name: string) => JSON.parse(await readFile(fixture(name), 'utf8'))

function only(cells: CellResult[]): CellResult {
  expect(cells).toHaveLength(1)
  return cells[0]
}

describe('vllm', () => {
  it('reproduces the headline figures of a --save-result file', async () => {
    const raw = await json('vllm-save-result.json')
    const cell = only(await ingestFiles('vllm', [fixture('vllm-save-result.json')]))
    const m = cell.metrics!
    expect(cell.id).toBe('vllm-Qwen3-8B/in512-out128-c8')
    expect(cell.workload).toEqual({ inputTokens: 512, outputTokens: 128, concurrency: 8, requests: 64, rate: null })
    expect([m.ttft_ms.mean, m.ttft_ms.p50, m.ttft_ms.p90, m.ttft_ms.p99]).toEqual([
      raw.mean_ttft_ms,
      raw.median_ttft_ms,
      raw.p90_ttft_ms,
      raw.p99_ttft_ms,
    ])
    expect([m.tpot_ms.mean, m.tpot_ms.p50, m.tpot_ms.p99]).toEqual([
      raw.mean_tpot_ms,
      raw.median_tpot_ms,
      raw.p99_tpot_ms,
    ])
    expect([m.itl_ms.mean, m.itl_ms.p50, m.itl_ms.p99, m.itl_ms.std]).toEqual([
      raw.mean_itl_ms,
      raw.median_itl_ms,
      raw.p99_itl_ms,
      raw.std_itl_ms,
    ])
    expect([m.e2e_ms.mean, m.e2e_ms.p99]).toEqual([raw.mean_e2el_ms, raw.p99_e2el_ms])
    expect(m.output_tps).toBe(raw.output_throughput)
    expect(m.total_tps).toBe(raw.total_token_throughput)
    expect(m.request_tps).toBe(raw.request_throughput)
    expect(m.decode_tps.mean).toBe(1000 / raw.mean_tpot_ms)
    expect(m.failed_share).toBe(0)
    expect(m.per_user_tps).toBe(raw.output_throughput / 8)
    expect(cell.ingested?.unmapped).toEqual(
      expect.arrayContaining(['ttft_ms: no min, max', 'prefill_tps: not reported', ONE_ROUND]),
    )
  })

  it('reads --append-result lines of an older release as rounds: "request_goodput:", no failed count, a numeric rate', async () => {
    const lines = (await readFile(fixture('vllm-append-result.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(Object.keys(lines[0])).toContain('request_goodput:')
    // That release's --append-result lines record no requested lengths: the runs asked for 1024 → 256.
    const cell = only(
      await ingestFiles('vllm', [fixture('vllm-append-result.jsonl')], { inputTokens: 1024, outputTokens: 256 }),
    )
    expect(cell.rounds.map((r) => r.metrics.ttft_ms.mean)).toEqual(lines.map((l) => l.mean_ttft_ms))
    expect(cell.metrics!.tpot_ms.mean).toBeCloseTo((lines[0].mean_tpot_ms + lines[1].mean_tpot_ms) / 2, 12)
    expect(cell.workload.rate).toBe(4)
    expect(cell.metrics!.failed_share).toBeNull()
    expect(cell.metrics!.e2e_ms.mean).toBeNull()
    expect(cell.ingested?.unmapped).toEqual(
      expect.arrayContaining(['failed_share: no failed count', 'e2e_ms: not reported']),
    )
    expect(cell.ingested?.unmapped).not.toContain(ONE_ROUND)
  })

  it("fills p90, min and max from --save-detailed arrays (seconds) and keeps the file's own statistics", async () => {
    const raw = await json('vllm-save-result.json')
    delete raw.p90_ttft_ms
    Object.assign(raw, {
      ttfts: [0.3, 0.4, 0.5, 0],
      latencies: [5, 5.2, 5.4, 0],
      output_lens: [128, 128, 128, 0],
      itls: [[0.03, 0.04], [0.05], [0.02], []],
      errors: ['', '', '', 'HTTP 500'],
    })
    const { ingestText, ingestFormat } = await import('../../src/ingest/index.js')
    const [run] = ingestText(ingestFormat('vllm'), JSON.stringify(raw), 'detailed.json')
    expect(run.figures.ttft_ms).toMatchObject({ mean: raw.mean_ttft_ms, min: 300, max: 500, p90: 480 })
    expect(run.figures.itl_ms).toMatchObject({ mean: raw.mean_itl_ms, min: 20, max: 50 })
    expect(run.achieved.outputTokens).toEqual({ min: 128, max: 128 })
  })
})

describe('sglang', () => {
  it('reads the bare Infinity of its default rate and maps e2e_latency; it counts no failures', async () => {
    const text = await readFile(fixture('sglang-bench-serving.jsonl'), 'utf8')
    expect(text).toContain('"request_rate": Infinity')
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.replace('Infinity', 'null')))
    const cell = only(await ingestFiles('sglang', [fixture('sglang-bench-serving.jsonl')]))
    expect(cell.rounds).toHaveLength(2)
    const [first] = cell.rounds
    expect([first.metrics.ttft_ms.mean, first.metrics.ttft_ms.p50, first.metrics.ttft_ms.p99]).toEqual([
      lines[0].mean_ttft_ms,
      lines[0].median_ttft_ms,
      lines[0].p99_ttft_ms,
    ])
    expect([first.metrics.tpot_ms.mean, first.metrics.tpot_ms.p50, first.metrics.tpot_ms.p99]).toEqual([
      lines[0].mean_tpot_ms,
      lines[0].median_tpot_ms,
      lines[0].p99_tpot_ms,
    ])
    expect([first.metrics.itl_ms.mean, first.metrics.itl_ms.p50, first.metrics.itl_ms.p99]).toEqual([
      lines[0].mean_itl_ms,
      lines[0].median_itl_ms,
      lines[0].p99_itl_ms,
    ])
    expect(first.metrics.e2e_ms.mean).toBe(lines[0].mean_e2e_latency_ms)
    expect(first.metrics.output_tps).toBe(lines[0].output_throughput)
    expect(first.metrics.total_tps).toBe(lines[0].total_throughput)
    expect(cell.workload).toEqual({ inputTokens: 1024, outputTokens: 256, concurrency: 16, requests: 200, rate: null })
    expect(cell.metrics!.failed_share).toBeNull()
    expect(cell.ingested?.unmapped).toContain('failed_share: SGLang counts no failed requests')
  })
})

describe('llama-bench', () => {
  it('makes each test a cell and each repetition a round; the configuration that varies names the target', async () => {
    const tests = await json('llama-bench.json')
    const cells = await ingestFiles('llama-bench', [fixture('llama-bench.json')])
    expect(cells.map((c) => c.id)).toEqual([
      'llama-bench-Qwen3-8B-Q4_K_M,flash_attn=false/pp512',
      'llama-bench-Qwen3-8B-Q4_K_M,flash_attn=false/tg128',
      'llama-bench-Qwen3-8B-Q4_K_M,flash_attn=true/pp512',
      'llama-bench-Qwen3-8B-Q4_K_M,flash_attn=true/tg128',
    ])
    const tg = cells[1]
    expect(tg.rounds.map((r) => r.metrics.decode_tps.mean)).toEqual(tests[1].samples_ts)
    expect(tg.metrics!.decode_tps.mean).toBeCloseTo(tests[1].avg_ts, 9)
    expect(tg.rounds[0].metrics.tpot_ms.mean).toBe(1000 / tests[1].samples_ts[0])
    expect(cells[0].rounds.map((r) => r.metrics.prefill_tps.mean)).toEqual(tests[0].samples_ts)
    expect(tg.info.version).toBe('llama.cpp 4a5c8e21 (6912)')
    expect(tg.ingested?.unmapped).toContain('ttft_ms, itl_ms: not measured (no streaming)')
  })

  it('reads an older build: backend flags instead of backends, no n_depth', async () => {
    const tests = await json('llama-bench-2024.json')
    expect(tests[0]).not.toHaveProperty('n_depth')
    const cells = await ingestFiles('llama-bench', [fixture('llama-bench-2024.json')])
    expect(cells.map((c) => c.id)).toEqual([
      'llama-bench-llama-3-8b-instruct.Q4_K_M/pp512',
      'llama-bench-llama-3-8b-instruct.Q4_K_M/tg128',
    ])
    expect(cells[1].metrics!.output_tps).toBeCloseTo(tests[1].avg_ts, 9)
  })

  it('falls back to samples_ns, then to avg_ts alone as one round', async () => {
    const { ingestText, ingestFormat } = await import('../../src/ingest/index.js')
    const test = { model_filename: 'm.gguf', n_prompt: 0, n_gen: 100, avg_ts: 50, stddev_ts: 1 }
    const fromNs = ingestText(
      ingestFormat('llama-bench'),
      JSON.stringify([{ ...test, samples_ns: [2e9, 2.5e9] }]),
      'ns.json',
    )
    expect(fromNs.map((r) => r.figures.output_tps)).toEqual([50, 40])
    const alone = ingestText(ingestFormat('llama-bench'), JSON.stringify([test]), 'avg.json')
    expect(alone.map((r) => r.figures.output_tps)).toEqual([50])
    expect(alone[0].unmapped).toContain('no samples_ts in this build: one round from avg_ts')
  })
})

describe('guidellm', () => {
  it('maps each benchmark of a sweep; its inter_token_latency_ms is our TPOT, request_latency is in seconds', async () => {
    const doc = await json('guidellm-benchmarks.json')
    const cells = await ingestFiles('guidellm', [fixture('guidellm-benchmarks.json')])
    expect(cells.map((c) => c.id)).toEqual([
      'guidellm/in512-out256-c1-concurrent',
      'guidellm/in512-out256-c8-concurrent',
    ])
    const raw = doc.benchmarks[1].metrics
    const m = cells[1].metrics!
    expect([m.ttft_ms.mean, m.ttft_ms.p50, m.ttft_ms.p99]).toEqual([
      raw.time_to_first_token_ms.successful.mean,
      raw.time_to_first_token_ms.successful.median,
      raw.time_to_first_token_ms.successful.percentiles.p99,
    ])
    expect([m.tpot_ms.mean, m.tpot_ms.p50, m.tpot_ms.p99]).toEqual([
      raw.inter_token_latency_ms.successful.mean,
      raw.inter_token_latency_ms.successful.median,
      raw.inter_token_latency_ms.successful.percentiles.p99,
    ])
    expect(m.e2e_ms.mean).toBe(raw.request_latency.successful.mean * 1000)
    expect(m.output_tps).toBe(raw.output_tokens_per_second.successful.mean)
    expect(m.failed_share).toBe(2 / 214)
    expect(m.itl_ms.mean).toBeNull()
    expect(cells[1].ingested?.unmapped).toContain('itl_ms: no per-chunk gaps')
  })
})

describe('aiperf', () => {
  it('maps inter_token_latency to TPOT and inter_chunk_latency to ITL', async () => {
    const raw = await json('aiperf-profile-export.json')
    const cell = only(await ingestFiles('aiperf', [fixture('aiperf-profile-export.json')]))
    const m = cell.metrics!
    expect(cell.id).toBe('aiperf/in1024-out256-c8')
    expect([m.ttft_ms.mean, m.ttft_ms.p50, m.ttft_ms.p99]).toEqual([
      raw.time_to_first_token.avg,
      raw.time_to_first_token.p50,
      raw.time_to_first_token.p99,
    ])
    expect([m.tpot_ms.mean, m.tpot_ms.p50, m.tpot_ms.p99]).toEqual([
      raw.inter_token_latency.avg,
      raw.inter_token_latency.p50,
      raw.inter_token_latency.p99,
    ])
    expect([m.itl_ms.mean, m.itl_ms.p50, m.itl_ms.p99]).toEqual([
      raw.inter_chunk_latency.avg,
      raw.inter_chunk_latency.p50,
      raw.inter_chunk_latency.p99,
    ])
    expect(m.output_tps).toBe(raw.output_token_throughput.avg)
    expect(m.decode_tps.mean).toBe(1000 / raw.inter_token_latency.avg)
    expect(cell.info.version).toBe('aiperf 0.3.0')
  })
})
