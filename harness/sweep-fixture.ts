/**
 * A concurrency sweep (1, 2, 4, 8) on two targets, for the serving curve's tests: a run judged by the real compare
 * code against a baseline file, and a dashboard input whose history holds three default-branch runs of it. Per-user
 * tok/s falls and output tok/s rises with concurrency, as a continuous-batching engine's do; the second target's
 * model is a hostile name.
 */
import { judgeCell } from '../src/compare/index.js'
import type { MetricsBlock } from '../src/core/measurements.js'
import type { GateConfig } from '../src/core/plan.js'
import type { CellResult, HistoryEntry, ResultsFile } from '../src/core/results.js'
import { sweepPointId } from '../src/core/sweep.js'
import type { DashboardInput } from '../src/report/index.js'
import { historyEntry, mergeHistory } from '../src/store/index.js'
import { flatCell, resultsFile } from '../test/helpers/builders.js'

export const SWEEP_MODEL = '<img src=x onerror=alert(1)>'
export const CONCURRENCIES = [1, 2, 4, 8] as const
export const TARGETS = ['qwen-fp8', 'qwen-nvfp4'] as const

const GATE: GateConfig = {
  decode: { maxRegression: 0.05, stat: 'mean' },
  'output-throughput': { maxRegression: 0.05, stat: 'mean' },
}

/** Per-user tok/s of a target at a concurrency, `speed` times the first target's. */
export function perUserAt(target: number, concurrency: number, speed = 1): number {
  return ((target === 0 ? 42 : 61) * speed) / (1 + 0.12 * (concurrency - 1))
}

function setConcurrency(block: MetricsBlock, concurrency: number, perUser: number): void {
  block.output_tps = perUser * concurrency
  block.per_user_tps = perUser
}

/** One run of the sweep on both targets: per-user tok/s `speed` times the reference figures. */
export function sweepCells(speed = 1): CellResult[] {
  return TARGETS.flatMap((target, t) =>
    CONCURRENCIES.map((c) => {
      const perUser = perUserAt(t, c, speed)
      const cell = flatCell(`${target}/${sweepPointId('chat-1k', c)}`, { decode: perUser * 1.1 }, 3, 1, {
        model: t === 1 ? SWEEP_MODEL : 'Qwen3.6-27B-FP8',
        engine: 'vllm',
        quant: t === 0 ? 'fp8' : 'nvfp4',
        info: { version: '0.11.0' },
        workload: { inputTokens: 1024, outputTokens: 128, concurrency: c, requests: c, rate: null, api: 'completions' },
      })
      setConcurrency(cell.metrics!, c, perUser)
      for (const round of cell.rounds) setConcurrency(round.metrics, c, perUser)
      return cell
    }),
  )
}

/** A run 10% slower than its baseline file, judged against it: every cell's verdict records the baseline figures. */
export function sweepRun(): ResultsFile {
  const base = resultsFile(sweepCells(1), 'a'.repeat(40))
  const cells = sweepCells(0.9)
  for (const cell of cells) cell.verdict = judgeCell(cell, { history: [], results: base }, GATE)
  const results = resultsFile(cells, 'c'.repeat(40))
  results.summary = {
    verdict: 'regression',
    regressions: cells.length,
    counts: { regression: cells.length },
    baseline: { sha: 'a'.repeat(40), hardware: 'nvidia-gb10', source: 'baseline-file', samples: 1, date: '' },
  }
  return results
}

/** Three default-branch runs, each `speeds[i]` times the reference; the last is the baseline file. */
export function sweepDashboard(speeds: readonly number[] = [1.2, 1, 0.9]): DashboardInput {
  let history: HistoryEntry[] = []
  let baseline = resultsFile([])
  speeds.forEach((speed, run) => {
    baseline = resultsFile(sweepCells(speed), `${run}`.repeat(40))
    baseline.run.startedAt = new Date(Date.UTC(2026, 0, 1) + run * 86_400_000).toISOString()
    const entry = historyEntry(baseline, { [TARGETS[0]]: {}, [TARGETS[1]]: {} })
    history = mergeHistory(
      { schema: 'llm-bench-gate/history@1', hardware: 'nvidia-gb10', entries: history },
      entry,
      'nvidia-gb10',
      10,
    ).entries
  })
  return { hardware: 'nvidia-gb10', baseline, history, repoUrl: 'https://github.com/acme/serving' }
}
