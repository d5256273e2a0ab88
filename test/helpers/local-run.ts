/**
 * A compare run that is not a default-branch run, judged by the real rules: a baseline file (two cells, decode
 * 50 tok/s, TTFT 20 ms) and this run, whose first cell's decode fell to 44 tok/s (a regression past the 5% limit)
 * and whose second cell matches the baseline. Its TTFT is small enough that the gate's 50 ms floor would put the
 * band below 0 ms. The stored history is the baseline file's one entry, as the file store gives it.
 */
import { judgeCell, runVerdict } from '../../src/compare/index.js'
import type { HistoryEntry, ResultsFile } from '../../src/core/results.js'
import type { RunRules } from '../../src/run/pages.js'
import { historyEntry } from '../../src/store/index.js'
import { GATE, flatCell, measured, resultsFile } from './builders.js'

export const BASE_SHA = 'a'.repeat(40)
export const RUN_SHA = 'c'.repeat(40)
export const REGRESSED = 'q27-vllm/chat-1k'
const STEADY = 'q27-vllm/chat-4k'

export interface LocalRun {
  results: ResultsFile
  history: HistoryEntry[]
  rules: RunRules
}

/** `run` overrides the run's metadata: `{ event: 'pull_request', ref: 'refs/pull/12/merge' }` for a PR's run. */
export function localCompareRun(run: Partial<ResultsFile['run']> = { event: 'local' }): LocalRun {
  const base = resultsFile(
    [flatCell(REGRESSED, { decode: 50, ttft: 20 }), flatCell(STEADY, { decode: 50, ttft: 20 })],
    BASE_SHA,
    { startedAt: '2026-01-01T00:00:00Z' },
  )
  const cells = [
    measured(REGRESSED, { decode: 44, ttft: 21 }, { model: 'Qwen3.6-27B' }),
    measured(STEADY, { decode: 50, ttft: 20 }, { model: 'Qwen3.6-27B' }),
  ]
  for (const c of cells) c.verdict = judgeCell(c, { history: [], results: base }, GATE)
  const results = resultsFile(cells, RUN_SHA, { startedAt: '2026-01-02T00:00:00Z', ref: 'refs/heads/feature', ...run })
  results.summary = {
    ...runVerdict(cells),
    baseline: { sha: BASE_SHA, hardware: 'nvidia-gb10', source: 'file base.json', samples: 1 },
  }
  return { results, history: [historyEntry(base)], rules: { 'q27-vllm': { gate: GATE } } }
}
