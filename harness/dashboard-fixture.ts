/**
 * A baseline and history for the dashboard's tests and its size check: `targets` × `scenarios` cells,
 * `runs` history entries, decode stepping up 20% two thirds of the way through (a level shift), the first
 * target's model a hostile name, every target under the built-in gate.
 */
import { defaultGateConfig } from '../src/config/settings.js'
import { historyEntry, mergeHistory } from '../src/store/index.js'
import { historyShifts } from '../src/compare/index.js'
import { TREND_METRICS, type DashboardInput } from '../src/report/index.js'
import type { CellResult, HistoryEntry } from '../src/core/results.js'
import { flatCell, resultsFile } from '../test/helpers/builders.js'

export const HOSTILE_MODEL = '<img src=x onerror=alert(1)>'
const ENGINES = ['vllm', 'sglang', 'llamacpp']
const QUANTS = ['fp8', 'nvfp4', 'Q4_K_M']

export function dashboardInput(targets: number, scenarios: number, runs: number): DashboardInput {
  const cellsAt = (run: number): CellResult[] =>
    Array.from({ length: targets }, (_, t) =>
      Array.from({ length: scenarios }, (_, s) => {
        // Deterministic wobble (±1.5%), a 20% step in decode at two thirds of the history.
        const wobble = 1 + 0.015 * Math.sin(run * 1.7 + t * 3.1 + s)
        const step = run >= Math.floor((runs * 2) / 3) ? 1.2 : 1
        const decode = (40 + 13 * ((t * 2) % 3) + 5 * s) * wobble * step
        const ttft = (300 + 120 * t + 200 * s) / wobble
        const engine = ENGINES[t % ENGINES.length]
        return flatCell(`t${t}-${engine}/s${s}`, { decode, ttft, output: decode * 6 }, 3, 1, {
          model: t === 0 ? HOSTILE_MODEL : `Qwen3.${t}-27B`,
          engine,
          quant: QUANTS[t % QUANTS.length],
          info: { version: `0.${t}.${s}` },
        })
      }),
    ).flat()
  let history: HistoryEntry[] = []
  let baseline = resultsFile(cellsAt(0))
  for (let run = 0; run < runs; run++) {
    const sha = (run.toString(16).padStart(4, '0') + 'abcdef').repeat(4).slice(0, 40)
    baseline = resultsFile(cellsAt(run), sha)
    baseline.run.startedAt = new Date(Date.UTC(2026, 0, 1) + run * 86_400_000).toISOString()
    history = mergeHistory(
      { schema: 'llm-bench-gate/history@1', hardware: 'nvidia-gb10', entries: history },
      historyEntry(baseline),
      'nvidia-gb10',
      runs,
    ).entries
  }
  // Every target with the gate a file without `gate:` gets.
  const gates = Object.fromEntries(baseline.cells.map((c) => [c.target, defaultGateConfig()]))
  const rules = Object.fromEntries(Object.entries(gates).map(([target, gate]) => [target, { gate }]))
  return {
    hardware: 'nvidia-gb10',
    baseline,
    history,
    shifts: historyShifts(baseline.cells, history, TREND_METRICS, rules),
    gates,
    repoUrl: 'https://github.com/acme/serving',
  }
}
