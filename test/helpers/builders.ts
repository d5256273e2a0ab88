/**
 * Builders of the shapes tests pass around: figures → stats → a metrics block → rounds → a cell → a results file, a
 * history entry, and cells judged by the real compare code for the report tests. Seeded noisy launches for the
 * Monte-Carlo tests build on these in sim-launch.ts.
 */
import { expect } from 'vitest'
import { judgeCell, runVerdict } from '../../src/compare/index.js'
import { ConfigError } from '../../src/core/errors.js'
import type { MetricsBlock, RoundResult, Stats } from '../../src/core/measurements.js'
import type { GateConfig } from '../../src/core/plan.js'
import { RESULTS_SCHEMA, type CellResult, type HistoryEntry, type ResultsFile } from '../../src/core/results.js'
import type { CellVerdict, MetricVerdict } from '../../src/core/verdicts.js'
import type { RenderContext } from '../../src/report/index.js'
import { readResults } from '../../src/store/index.js'

export interface Figures {
  decode?: number
  ttft?: number
  tpot?: number
  output?: number
  /** End-to-end latency, ms (defaults to TTFT + 127 × TPOT). */
  e2e?: number
  /** Requests per second (defaults to output / 128, a 128-token reply each). */
  request?: number
  /** Overrides the p99 of TTFT (defaults to 1.5 × mean). */
  ttftP99?: number
  /** J/token; absent unless given, as on a box without GPU power readings. */
  energy?: number
  /** Spec-decode factors (tokens per verify step, verify-step ms); absent unless given, as for a cell that drafts nothing. */
  accept?: number
  step?: number
}

/** How a distribution spreads around its mean. */
export type Spread = (mean: number, p99?: number) => Stats

/** Spread in proportion to the mean: p50 = mean, p90 = 1.2 × mean, p99 = 1.5 × mean unless given. */
export const stats: Spread = (mean, p99 = mean * 1.5) => ({
  mean,
  p50: mean,
  p90: mean * 1.2,
  p99,
  std: mean * 0.1,
  min: mean * 0.5,
  max: p99 * 1.1,
})

/** Distinct, recognisable stats, for tests that read one back by name: p50 = mean + 1, p90 = mean + 2, p99 = mean + 3. */
export const offsetStats: Spread = (mean) => ({
  mean,
  p50: mean + 1,
  p90: mean + 2,
  p99: mean + 3,
  std: 1,
  min: mean - 1,
  max: mean + 4,
})

/** A block of 1,024-token prompts and 128-token replies at 8 concurrent: decode 50 tok/s and TTFT 400 ms unless given. */
export function block(f: Figures = {}, spread: Spread = stats): MetricsBlock {
  const decode = f.decode ?? 50
  const ttft = f.ttft ?? 400
  const tpot = f.tpot ?? 1000 / decode
  const output = f.output ?? decode * 8
  return {
    ttft_ms: spread(ttft, f.ttftP99),
    tpot_ms: spread(tpot),
    itl_ms: spread(tpot),
    e2e_ms: spread(f.e2e ?? ttft + 127 * tpot),
    decode_tps: spread(decode),
    prefill_tps: spread(1024_000 / ttft),
    output_tps: output,
    total_tps: output * 9,
    per_user_tps: output / 8,
    request_tps: f.request ?? output / 128,
    failed_share: 0,
    ...(f.energy !== undefined && { energy_j_per_token: f.energy }),
    ...(f.accept !== undefined && { accept_length: f.accept }),
    ...(f.step !== undefined && { step_ms: f.step }),
  }
}

export function round(index: number, steady: boolean, f: Figures = {}, spread: Spread = stats): RoundResult {
  return {
    index,
    steady,
    requests: 8,
    errors: 0,
    errorReasons: [],
    durationMs: 3000,
    metrics: block(f, spread),
    achieved: { promptTokens: { min: 1024, max: 1024 }, outputTokens: { min: 128, max: 128 } },
  }
}

/** A measured cell whose steady value is the mean of its steady rounds' figures. */
export function cell(id: string, rounds: RoundResult[], extra: Partial<CellResult> = {}): CellResult {
  const [target, scenario] = id.split('/')
  const steady = rounds.filter((r) => r.steady)
  const avg = (pick: (b: MetricsBlock) => number) => steady.reduce((s, r) => s + pick(r.metrics), 0) / steady.length
  const metrics = steady.length
    ? block({
        decode: avg((b) => b.decode_tps.mean),
        ttft: avg((b) => b.ttft_ms.mean),
        tpot: avg((b) => b.tpot_ms.mean),
        output: avg((b) => b.output_tps),
        ttftP99: avg((b) => b.ttft_ms.p99),
        ...(steady.every((r) => r.metrics.energy_j_per_token !== undefined) && {
          energy: avg((b) => b.energy_j_per_token!),
        }),
        ...(steady.every((r) => r.metrics.accept_length !== undefined && r.metrics.step_ms !== undefined) && {
          accept: avg((b) => b.accept_length!),
          step: avg((b) => b.step_ms!),
        }),
      })
    : null
  return {
    id,
    target,
    scenario,
    engine: 'sim',
    quant: 'fp8',
    model: 'sim/qwen',
    status: 'ok',
    error: null,
    flags: [],
    workload: { inputTokens: 1024, outputTokens: 128, concurrency: 8, requests: 8, rate: null },
    metrics,
    rounds,
    info: {},
    verdict: { status: 'new', metrics: {} },
    ...extra,
  }
}

/** Cell with the same figures in every round (`steady` rounds after the first `discard`). */
export function flatCell(id: string, f: Figures, rounds = 3, discard = 1, extra: Partial<CellResult> = {}): CellResult {
  return cell(
    id,
    Array.from({ length: rounds }, (_, i) => round(i, i >= discard, f)),
    extra,
  )
}

type StoredFigures = Required<Pick<Figures, 'decode' | 'ttft'>>

/** A store test's decode and TTFT with the end-to-end latency and the round's rates that follow from them. */
const stored = ({ decode, ttft }: StoredFigures): Figures => ({
  decode,
  ttft,
  e2e: ttft + 127_000 / decode,
  output: decode * 7,
  request: decode / 20,
})

/** A block as the store tests read it back: every stat offset from its mean (`offsetStats`). */
export function storedBlock(f: StoredFigures): MetricsBlock {
  return block(stored(f), offsetStats)
}

/**
 * A passed cell as a store keeps it: one warm-up round (decode 1, TTFT 9999 ms, not steady), then one steady round
 * per figures given (`storedBlock`), the steady value the mean of decode and TTFT.
 */
export function storedCell(id: string, steady: StoredFigures[], extra: Partial<CellResult> = {}): CellResult {
  const mean = (pick: (f: StoredFigures) => number): number => steady.reduce((s, f) => s + pick(f), 0) / steady.length
  const rounds = [
    round(0, false, stored({ decode: 1, ttft: 9999 }), offsetStats),
    ...steady.map((f, i) => round(i + 1, true, stored(f), offsetStats)),
  ]
  return cell(id, rounds, {
    quant: null,
    model: 'sim/model',
    metrics: storedBlock({ decode: mean((f) => f.decode), ttft: mean((f) => f.ttft) }),
    verdict: { status: 'pass', metrics: {} },
    ...extra,
  })
}

/** A results file of a push to main on `run.hardware` (default nvidia-gb10), started 2026-01-01 unless given. */
export function resultsFile(
  cells: CellResult[],
  sha = 'b'.repeat(40),
  run: Partial<ResultsFile['run']> = {},
): ResultsFile {
  return {
    schema: RESULTS_SCHEMA,
    run: {
      sha,
      ref: 'refs/heads/main',
      event: 'push',
      runUrl: 'https://example.test/run/1',
      startedAt: '2026-01-01T00:00:00Z',
      hardware: 'nvidia-gb10',
      tool: { name: 'llm-bench-gate', version: '0.1.0' },
      ...run,
    },
    cells,
  }
}

/** A results file as the store tests write them: on the `cpu` key, its run page named by the sha. */
export function storedResults(sha: string, startedAt: string, cells: CellResult[]): ResultsFile {
  return resultsFile(cells, sha, { startedAt, hardware: 'cpu', runUrl: `https://example.test/runs/${sha}` })
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

/** A history entry as the store writes it: per gated metric key the cell has, the steady value and the steady rounds. */
export function historyEntry(cells: CellResult[], keys: string[], sha = 'h'.repeat(40)): HistoryEntry {
  const entry: HistoryEntry = { sha, date: '2026-01-01T00:00:00Z', runUrl: 'https://example.test/run/0', cells: {} }
  for (const c of cells) {
    entry.cells[c.id] = {}
    for (const key of keys) {
      // An optional figure the cell lacks (energy, the spec-decode factors) is not stored, as the store does.
      if (c.metrics![key.split('.')[0] as keyof MetricsBlock] === undefined) continue
      entry.cells[c.id][key] = {
        steady: readKey(c.metrics!, key),
        rounds: c.rounds.filter((r) => r.steady).map((r) => readKey(r.metrics, key)),
      }
    }
  }
  return entry
}

function readKey(b: MetricsBlock, key: string): number {
  const [field, stat] = key.split('.') as [keyof MetricsBlock, keyof Stats | undefined]
  const value = b[field]
  return typeof value === 'number' ? value : value![stat ?? 'mean']
}

export const GATE: GateConfig = {
  decode: { maxRegression: 0.05, stat: 'mean' },
  ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
}

export const CTX: RenderContext = {
  configPath: '.github/llm-bench.yml',
  mode: 'compare',
  repoUrl: 'https://github.com/acme/serving',
  runUrl: 'https://github.com/acme/serving/actions/runs/42',
  sha: 'c'.repeat(40),
}

export const LOG_TAIL =
  'INFO loading weights\n```\nTraceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: CUDA out of memory | <b>bold</b>\n````\n'

export type Kind = 'pass' | 'regression' | 'error' | 'flagged' | 'improvement' | 'new'

/** Two steady rounds around the figures (±0.5 %) after a cold round. */
export function measured(id: string, f: Figures, extra: Partial<CellResult> = {}): CellResult {
  const scale = (k: number): Figures => Object.fromEntries(Object.entries(f).map(([key, v]) => [key, v * k]))
  return cell(id, [round(0, false, scale(0.8)), round(1, true, scale(0.995)), round(2, true, scale(1.005))], extra)
}

export function failed(id: string, error: string, logTail = LOG_TAIL): CellResult {
  return {
    ...flatCell(id, {}),
    status: 'error',
    error,
    metrics: null,
    rounds: [],
    info: { launch: `serve --model m --port 8000 # ${id}`, logTail },
  }
}

/**
 * A cell verdict written by hand, decided on decode (mean) alone: the cell and its one metric share `status`; `extra`
 * adds to the metric's verdict (`needs`, `moreRounds`, …). For report and page tests that need a verdict the judge
 * would not reach from their figures.
 */
export function decodeVerdict(
  status: 'regression' | 'inconclusive' | 'pass',
  figures: { current: number; baseline: number; delta: number; reason: string },
  extra: Partial<MetricVerdict> = {},
): CellVerdict {
  return { status, metrics: { decode: { status, metric: 'decode', stat: 'mean', ...figures, ...extra } } }
}

/** Judges `cells` against a baseline where every non-new cell did 50 tok/s and 400 ms, and fills the summary. */
export function judged(cells: CellResult[], kinds: Kind[]): ResultsFile {
  const base = resultsFile(
    cells.filter((_, i) => kinds[i] !== 'new').map((c) => flatCell(c.id, { decode: 50, ttft: 400 })),
    'a'.repeat(40),
  )
  for (const c of cells) c.verdict = judgeCell(c, { history: [], results: base }, GATE)
  const results = resultsFile(cells, 'c'.repeat(40))
  results.summary = {
    ...runVerdict(cells),
    baseline: {
      sha: 'a'.repeat(40),
      hardware: 'nvidia-gb10',
      source: 'llm-bench-data',
      samples: 5,
      date: '2026-01-02T03:04:05Z',
    },
  }
  return results
}

/** `targets × scenarios` cells; the kind of cell i is `kindOf(i)`. */
export function matrix(
  targets: number,
  scenarios: number,
  kindOf: (i: number) => Kind,
): { results: ResultsFile; kinds: Kind[] } {
  const cells: CellResult[] = []
  const kinds: Kind[] = []
  for (let t = 0; t < targets; t++) {
    for (let s = 0; s < scenarios; s++) {
      const i = cells.length
      const kind = kindOf(i)
      const id = `qwen38-27b-q${t}-vllm/chat-${s}k`
      const extra: Partial<CellResult> = {
        info: { version: '0.11.0', launch: `vllm serve /models/q${t} --port {port}` },
      }
      kinds.push(kind)
      if (kind === 'error') cells.push(failed(id, `not ready after 20m (exit 1) #${i}`))
      else if (kind === 'regression') cells.push(measured(id, { decode: 44, ttft: 400 }, extra))
      else if (kind === 'improvement') cells.push(measured(id, { decode: 56, ttft: 400 }, extra))
      else if (kind === 'flagged')
        cells.push(measured(id, { decode: 50, ttft: 400 }, { ...extra, flags: ['short-output: 96 of 128 tokens'] }))
      else cells.push(measured(id, { decode: 50 * (1 + ((i % 7) - 3) / 1000), ttft: 400 }, extra))
    }
  }
  return { results: judged(cells, kinds), kinds }
}
