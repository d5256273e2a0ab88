/**
 * One cell on a running target: a measurement, with the engine's counters read around it, and
 * the confirmation of a verdict that looks regressed — the cell is measured again while its
 * server is still up and each fresh verdict is folded into the first, so a regression fails
 * the gate only when the re-measurement regresses too.
 */
import type { BenchClient, CellMeasurement, RoundProgress } from './bench/measure.js'
import { confirmVerdict, needsConfirmation } from './compare/index.js'
import type { Logger } from './core/log.js'
import type { CellPlan } from './core/plan.js'
import type { CellResult, CellVerdict, SpecDecodeStats } from './core/results.js'
import type { EngineAdapter, HttpPorts } from './engines/types.js'

export interface MeasureCellOptions {
  cell: CellPlan
  adapter: EngineAdapter
  client: BenchClient
  http: HttpPorts
  baseUrl: string
  log: Logger
  seed: number
  signal: AbortSignal
}

export interface MeasuredCell {
  measurement: CellMeasurement
  /** Spec-decode acceptance from the engine's counters before and after, when it exposes them. */
  specDecode: SpecDecodeStats | undefined
}

export async function measureCell(o: MeasureCellOptions): Promise<MeasuredCell> {
  const { cell, adapter, http, baseUrl } = o
  const { settings } = cell.target
  const before = await adapter.counters?.(http, baseUrl)
  const measurement = await o.client.measure({
    scenario: cell.scenario,
    rounds: settings.rounds,
    discard: settings.discard,
    maxErrorShare: settings.maxErrorShare,
    seed: o.seed,
    signal: o.signal,
    onRound: (p) => o.log.info(progressLine(cell.id, p)),
  })
  const after = await adapter.counters?.(http, baseUrl)
  return { measurement, specDecode: adapter.specDecode?.(before, after, measurement.requests) }
}

function progressLine(id: string, p: RoundProgress): string {
  return `${id}: round ${p.round + 1}/${p.rounds}: ${p.done}/${p.total} requests${p.errors ? `, ${p.errors} failed` : ''}, ${p.tokensPerSecond.toFixed(1)} tok/s`
}

export interface ConfirmOptions {
  cell: CellPlan
  judge: (cell: CellResult) => CellVerdict
  log: Logger
  /** Measures the cell once more; `attempt` counts the re-measurements from 1. */
  remeasure: (attempt: number) => Promise<CellResult>
}

/** Judges a measured cell; while it looks regressed, re-measures it up to the target's `confirm` times and folds the verdicts. */
export async function judgeAndConfirm(result: CellResult, o: ConfirmOptions): Promise<CellResult> {
  const { cell, judge, log } = o
  const times = cell.target.settings.confirm
  result.verdict = judge(result)
  for (let i = 0; i < times && needsConfirmation(result.verdict); i++) {
    log.info(`${cell.id}: looks regressed (${regressions(result.verdict)}); re-measuring to confirm (${i + 1}/${times})`)
    const second = await o.remeasure(i + 1)
    result.verdict = confirmVerdict(result.verdict, second.status === 'ok' ? judge(second) : second.verdict)
  }
  return result
}

function regressions(verdict: CellVerdict): string {
  return Object.values(verdict.metrics)
    .filter((m) => m?.status === 'regression')
    .map((m) => m!.reason)
    .join('; ')
}
