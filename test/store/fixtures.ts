/** Results files for the store tests: each round's figures are given, the steady value is their mean. */
import type { MetricsBlock, RoundResult, Stats } from '../../src/core/measurements.js'
import { expect } from 'vitest'
import { ConfigError } from '../../src/core/errors.js'
import { RESULTS_SCHEMA, type CellResult, type ResultsFile } from '../../src/core/results.js'
import { readResults } from '../../src/store/index.js'

/** Distinct, recognisable stats: p50 = mean + 1, p90 = mean + 2, p99 = mean + 3. */
const stats = (mean: number): Stats => ({
  mean,
  p50: mean + 1,
  p90: mean + 2,
  p99: mean + 3,
  std: 1,
  min: mean - 1,
  max: mean + 4,
})

export interface Figures {
  decode: number
  ttft: number
}

export function block({ decode, ttft }: Figures): MetricsBlock {
  return {
    ttft_ms: stats(ttft),
    tpot_ms: stats(1000 / decode),
    itl_ms: stats(1000 / decode),
    e2e_ms: stats(ttft + 127_000 / decode),
    decode_tps: stats(decode),
    prefill_tps: stats(1_024_000 / ttft),
    output_tps: decode * 7,
    total_tps: decode * 63,
    per_user_tps: (decode * 7) / 8,
    request_tps: decode / 20,
    failed_share: 0,
  }
}

const round = (index: number, steady: boolean, f: Figures): RoundResult => ({
  index,
  steady,
  requests: 8,
  errors: 0,
  errorReasons: [],
  durationMs: 3000,
  metrics: block(f),
  achieved: { promptTokens: { min: 1024, max: 1024 }, outputTokens: { min: 128, max: 128 } },
})

/** A cell with one warm-up round (not steady, decode 1) then the given steady rounds. */
export function cell(id: string, steady: Figures[], extra: Partial<CellResult> = {}): CellResult {
  const [target, scenario] = id.split('/')
  const mean = (pick: (f: Figures) => number): number => steady.reduce((s, f) => s + pick(f), 0) / steady.length
  return {
    id,
    target,
    scenario,
    engine: 'sim',
    quant: null,
    model: 'sim/model',
    status: 'ok',
    error: null,
    flags: [],
    workload: { inputTokens: 1024, outputTokens: 128, concurrency: 8, requests: 8, rate: null },
    metrics: block({ decode: mean((f) => f.decode), ttft: mean((f) => f.ttft) }),
    rounds: [round(0, false, { decode: 1, ttft: 9999 }), ...steady.map((f, i) => round(i + 1, true, f))],
    info: {},
    verdict: { status: 'pass', metrics: {} },
    ...extra,
  }
}

export function results(sha: string, startedAt: string, cells: CellResult[]): ResultsFile {
  return {
    schema: RESULTS_SCHEMA,
    run: {
      sha,
      ref: 'refs/heads/main',
      event: 'push',
      runUrl: `https://example.test/runs/${sha}`,
      startedAt,
      hardware: 'cpu',
      tool: { name: 'llm-bench-gate', version: '0.1.0' },
    },
    cells,
  }
}

/** Problems the results reader reports for `text` (read from `where`), or [] when it reads. */
export function readProblems(text: string, where: string): string[] {
  try {
    readResults(text, where)
    return []
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).problems
  }
}
