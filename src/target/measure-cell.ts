/**
 * One cell on a running target: a measurement, with the engine's counters read around it; more warm rounds
 * while noise alone keeps it undecided (up to `max-rounds`); and the confirmation of a verdict that looks
 * regressed — the cell is measured again (on the running server, or a fresh launch with `confirm-fresh`) and
 * judged on every measurement pooled, metric by metric, so a regression fails the gate only when it holds.
 */
import type { BenchClient, CellMeasurement, MeasureOptions, RoundProgress } from '../bench/measure.js'
import type { CellJudge } from './cell-judge.js'
import { needsConfirmation } from '../compare/index.js'
import { formatPercent } from '../core/format.js'
import type { Logger } from '../core/log.js'
import type { CellPlan } from '../core/plan.js'
import type { CellResult, CellVerdict, SpecDecodeStats } from '../core/results.js'
import type { EngineAdapter, HttpPorts } from '../engines/types.js'

export interface MeasureCellOptions {
  cell: CellPlan
  adapter: EngineAdapter
  client: BenchClient
  http: HttpPorts
  baseUrl: string
  log: Logger
  seed: number
  signal: AbortSignal
  /** Add this many warm rounds to `after` instead of measuring the cell afresh. */
  extend?: { after: CellMeasurement; rounds: number }
  /** Watches each round for what would disturb it (a GPU slowdown): such a round is measured again. */
  watch?: MeasureOptions['watch']
}

export interface MeasuredCell {
  measurement: CellMeasurement
  /** Spec-decode acceptance from the engine's counters before and after, when it exposes them. */
  specDecode: SpecDecodeStats | undefined
}

export async function measureCell(o: MeasureCellOptions): Promise<MeasuredCell> {
  const { cell, adapter, http, baseUrl } = o
  const { settings } = cell.target
  // Counters span one measurement; added rounds keep the first measurement's acceptance figures.
  const before = o.extend ? undefined : await adapter.counters?.(http, baseUrl)
  const measurement = await o.client.measure({
    scenario: cell.scenario,
    rounds: o.extend?.rounds ?? settings.rounds,
    discard: settings.discard,
    after: o.extend?.after,
    maxErrorShare: settings.maxErrorShare,
    seed: o.seed,
    signal: o.signal,
    onRound: (p) => o.log.info(progressLine(cell.id, p)),
    watch: o.watch,
    onDisturbed: (d) => o.log.warn(`${cell.id}: round ${d.round + 1} disturbed (${d.reason}); measuring it again (${d.again}/${d.max})`),
  })
  if (o.extend) return { measurement, specDecode: undefined }
  const after = await adapter.counters?.(http, baseUrl)
  return { measurement, specDecode: adapter.specDecode?.(before, after, measurement.requests) }
}

function progressLine(id: string, p: RoundProgress): string {
  return `${id}: round ${p.round + 1}/${p.rounds}: ${p.done}/${p.total} requests${p.errors ? `, ${p.errors} failed` : ''}, ${p.tokensPerSecond.toFixed(1)} tok/s`
}

export interface DecideOptions {
  cell: CellPlan
  judge: CellJudge
  log: Logger
  /** Measures `rounds` more warm rounds on the running server; the cell over every round so far. */
  addRounds: (rounds: number) => Promise<CellResult>
  /** Measures the cell once more; `attempt` counts the re-measurements from 1. */
  remeasure: (attempt: number) => Promise<CellResult>
  /** The re-measurements come from fresh launches (`confirm-fresh`). */
  fresh: boolean
}

/** Judges a measured cell: more warm rounds while noise alone keeps it undecided, then confirmation while it looks regressed. */
export async function decideCell(measured: CellResult, o: DecideOptions): Promise<CellResult> {
  const result = await addRounds(measured, o)
  return result.status === 'ok' ? confirm(result, o) : result
}

async function addRounds(measured: CellResult, o: DecideOptions): Promise<CellResult> {
  const { cell, judge, log } = o
  const { maxRounds } = cell.target.settings
  let result = measured
  result.verdict = judge.judge(result)
  for (let more = judge.moreRounds(result, maxRounds); more > 0; more = judge.moreRounds(result, maxRounds)) {
    log.info(`${cell.id}: inconclusive (noise ±${formatPercent(widestBand(result.verdict))}), measuring ${more} more round${more === 1 ? '' : 's'} (${result.rounds.length + more}/${maxRounds})`)
    result = await o.addRounds(more)
    if (result.status !== 'ok') return result
    result.verdict = judge.judge(result)
  }
  return result
}

/** Re-measures a cell that looks regressed, up to the target's `confirm` times, judging all measurements pooled after each. */
async function confirm(result: CellResult, o: DecideOptions): Promise<CellResult> {
  const { cell, judge, log } = o
  const times = cell.target.settings.confirm
  const again: CellResult[] = []
  let verdict = result.verdict
  for (let i = 0; i < times && needsConfirmation(verdict); i++) {
    log.info(`${cell.id}: looks regressed (${regressions(verdict)}); re-measuring to confirm (${i + 1}/${times}${o.fresh ? ', fresh launch' : ''})`)
    again.push(await o.remeasure(i + 1))
    verdict = judge.confirm(result, again, o.fresh)
  }
  return { ...result, verdict }
}

function widestBand(verdict: CellVerdict): number {
  return Math.max(0, ...Object.values(verdict.metrics).map((m) => (m?.status === 'inconclusive' ? (m.band ?? 0) : 0)))
}

function regressions(verdict: CellVerdict): string {
  return Object.values(verdict.metrics)
    .filter((m) => m?.status === 'regression')
    .map((m) => m!.reason)
    .join('; ')
}
