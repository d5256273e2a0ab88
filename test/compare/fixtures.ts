/** Builders for cells, rounds, baselines and history used by the compare and report tests. */
import type { MetricsBlock, RoundResult, Stats } from '../../src/core/measurements.js'
import type { CellResult, HistoryEntry, ResultsFile } from '../../src/core/results.js'
import { mulberry32 } from '../../src/core/random.js'

export interface Figures {
  decode?: number
  ttft?: number
  tpot?: number
  output?: number
  /** Overrides the p99 of TTFT (defaults to 1.5 × mean). */
  ttftP99?: number
  /** J/token; absent unless given, as on a box without GPU power readings. */
  energy?: number
  /** Spec-decode factors (tokens per verify step, verify-step ms); absent unless given, as for a cell that drafts nothing. */
  accept?: number
  step?: number
}

export function stats(mean: number, p99 = mean * 1.5): Stats {
  return { mean, p50: mean, p90: mean * 1.2, p99, std: mean * 0.1, min: mean * 0.5, max: p99 * 1.1 }
}

export function block(f: Figures = {}): MetricsBlock {
  const decode = f.decode ?? 50
  const ttft = f.ttft ?? 400
  const tpot = f.tpot ?? 1000 / decode
  const output = f.output ?? decode * 8
  return {
    ttft_ms: stats(ttft, f.ttftP99),
    tpot_ms: stats(tpot),
    itl_ms: stats(tpot),
    e2e_ms: stats(ttft + 127 * tpot),
    decode_tps: stats(decode),
    prefill_tps: stats(1024_000 / ttft),
    output_tps: output,
    total_tps: output * 9,
    per_user_tps: output / 8,
    request_tps: output / 128,
    failed_share: 0,
    ...(f.energy !== undefined && { energy_j_per_token: f.energy }),
    ...(f.accept !== undefined && { accept_length: f.accept }),
    ...(f.step !== undefined && { step_ms: f.step }),
  }
}

export function round(index: number, steady: boolean, f: Figures = {}): RoundResult {
  return {
    index,
    steady,
    requests: 8,
    errors: 0,
    errorReasons: [],
    durationMs: 3000,
    metrics: block(f),
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

export function resultsFile(cells: CellResult[], sha = 'b'.repeat(40)): ResultsFile {
  return {
    schema: 'llm-bench-gate/results@1',
    run: {
      sha,
      ref: 'refs/heads/main',
      event: 'push',
      runUrl: 'https://example.test/run/1',
      startedAt: '2026-01-01T00:00:00Z',
      hardware: 'nvidia-gb10',
      tool: { name: 'llm-bench-gate', version: '0.1.0' },
    },
    cells,
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

/** Seeded standard normal draws (Box-Muller over mulberry32), so the simulation is reproducible. */
export function normalSource(seed: number): () => number {
  const uniform = uniformSource(seed)
  let spare: number | undefined
  return () => {
    if (spare !== undefined) {
      const s = spare
      spare = undefined
      return s
    }
    const u = 1 - uniform()
    const v = uniform()
    const r = Math.sqrt(-2 * Math.log(u))
    spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }
}

/** Noise of a simulated benchmark, relative: per-round normal noise, a per-launch offset and occasional slow rounds. */
export interface SimNoise {
  /** Coefficient of variation of one round's figure (normal, independent between rounds). */
  cv: number
  /** Standard deviation of a launch's offset, shared by every round of that launch (restart-to-restart noise). */
  restart?: number
  /** Heavy tail: a share of rounds runs slower by `by` (decode × (1 − by), TTFT × (1 + by)), as thermal throttling does. */
  slow?: { share: number; by: number }
}

/** The figures a simulated launch measures around, and its draws. */
export interface SimLaunch {
  decode: number
  ttft: number
  draw: () => number
  uniform: () => number
  noise: SimNoise
}

export function launch(
  level: { decode: number; ttft: number },
  noise: SimNoise,
  draw: () => number,
  uniform: () => number,
): SimLaunch {
  const offset = () => 1 + (noise.restart ?? 0) * draw()
  return { decode: level.decode * offset(), ttft: level.ttft * offset(), draw, uniform, noise }
}

export function simRound(at: SimLaunch, index: number, steady: boolean): RoundResult {
  const slow = at.noise.slow && at.uniform() < at.noise.slow.share ? at.noise.slow.by : 0
  const jitter = () => 1 + at.noise.cv * at.draw()
  return round(index, steady, { decode: at.decode * jitter() * (1 - slow), ttft: at.ttft * jitter() * (1 + slow) })
}

/** One measurement of a cell on a launch: `rounds` rounds, the first `discard` left out of the steady state. */
export function simCell(id: string, at: SimLaunch, rounds: number, discard: number): CellResult {
  return cell(
    id,
    Array.from({ length: rounds }, (_, i) => simRound(at, i, i >= discard)),
  )
}

/** The cell with `more` steady rounds added on the same launch, its steady state recomputed. */
export function extendCell(c: CellResult, at: SimLaunch, more: number): CellResult {
  const n = c.rounds.length
  return cell(c.id, [...c.rounds, ...Array.from({ length: more }, (_, i) => simRound(at, n + i, true))])
}

/** Seeded uniform draws: the project's own PRNG, so the trials are the same sequence everywhere. */
export const uniformSource = mulberry32
