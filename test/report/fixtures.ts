/** A realistic results file: cells judged against a baseline by the real compare code. */
import { judgeCell, runVerdict } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/core/plan.js'
import type { RenderContext } from '../../src/report/index.js'
import type { CellResult, ResultsFile } from '../../src/core/results.js'
import { cell, flatCell, resultsFile, round, type Figures } from '../compare/fixtures.js'

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
