/**
 * Measuring and deciding one cell. `measureCell` is one measurement on a running target, with the engine's
 * counters read around it. `measureAndDecide` is the loop every cell goes through, launched or external: more
 * warm rounds while noise alone keeps it undecided (up to `max-rounds`), then the confirmation of a verdict
 * that looks regressed — the cell is measured again (on the running server, a fresh launch with
 * `confirm-fresh`, or the external command's next rounds) and judged on every measurement pooled, metric by
 * metric, so a regression fails the gate only when it holds.
 */
import type { BenchClient, CellMeasurement, MeasureOptions, RoundProgress } from '../bench/measure.js'
import { steadyState } from '../bench/rounds/round.js'
import type { CellJudge } from '../compare/index.js'
import { needsConfirmation, withDisturbed } from '../compare/index.js'
import { formatPercent } from '../core/format.js'
import type { Logger } from '../core/log.js'
import type { CellPlan } from '../core/plan.js'
import type { CellResult, CellVerdict, PrefixCacheReset, SpecDecodeStats } from '../core/results.js'
import type { EngineAdapter, HttpPorts } from '../engines/types.js'
import { combineWatches, serverWatch } from './server-watch.js'
import { coldReset } from './cold-reset.js'

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
  /** Gets each steady round and its requests: the per-request record beside the results (request-files.ts). */
  onSteadyRound?: MeasureOptions['onSteadyRound']
}

export interface MeasuredCell {
  measurement: CellMeasurement
  /** Spec-decode acceptance from the engine's counters before and after, when it exposes them. */
  specDecode: SpecDecodeStats | undefined
  /** What emptying the prefix cache before the cold round came to (cold-reset.ts); absent for added rounds. */
  prefixCacheReset?: PrefixCacheReset
}

export async function measureCell(o: MeasureCellOptions): Promise<MeasuredCell> {
  const { cell, adapter, http, baseUrl } = o
  const { settings } = cell.target
  // Counters span one measurement; added rounds keep the first measurement's acceptance figures.
  const before = o.extend ? undefined : await adapter.counters?.(http, baseUrl)
  const reset = coldReset({ adapter, http, baseUrl, log: o.log, cellId: cell.id })
  const measurement = await o.client.measure({
    scenario: cell.scenario,
    rounds: o.extend?.rounds ?? settings.rounds,
    discard: settings.discard,
    after: o.extend?.after,
    maxErrorShare: settings.maxErrorShare,
    seed: o.seed,
    signal: o.signal,
    onRound: (p) => o.log.info(progressLine(cell.id, p)),
    // The engine's counters around each steady round, next to the host's GPU watch.
    watch: combineWatches(o.watch, serverWatch(adapter, baseUrl, { log: o.log })),
    acceptance: adapter.roundAcceptance && ((server, records) => adapter.roundAcceptance?.(server, records)),
    onDisturbed: (d) =>
      o.log.warn(`${cell.id}: round ${d.round + 1} disturbed (${d.reason}); measuring it again (${d.again}/${d.max})`),
    beforeCold: reset.beforeCold,
    onSteadyRound: o.onSteadyRound,
  })
  if (o.extend) return { measurement, specDecode: undefined }
  const after = await adapter.counters?.(http, baseUrl)
  const prefixCacheReset = reset.outcome()
  return {
    measurement,
    specDecode: adapter.specDecode?.(before, after, measurement.requests),
    ...(prefixCacheReset && { prefixCacheReset }),
  }
}

function progressLine(id: string, p: RoundProgress): string {
  return `${id}: round ${p.round + 1}/${p.rounds}: ${p.done}/${p.total} requests${p.errors ? `, ${p.errors} failed` : ''}, ${p.tokensPerSecond.toFixed(1)} tok/s`
}

/**
 * Where a cell's measurements come from: a launched target's running server, or an external target's
 * command. The loop that decides the cell asks it for each one.
 */
export interface CellSource {
  /** The cell measured afresh: attempt 0 is its first measurement, 1, 2, … its re-measurements. */
  measure(attempt: number): Promise<CellResult>
  /** The first measurement with `rounds` more warm rounds; the cell over every round so far. */
  addRounds(rounds: number): Promise<CellResult>
  /** The re-measurements come from fresh launches (`confirm-fresh`). */
  fresh: boolean
}

/**
 * Measures a cell and, when the run compares, decides it: more warm rounds while noise alone keeps it
 * undecided (up to `max-rounds`), then re-measurements while it looks regressed (up to `confirm`), judging
 * after each measurement. A measurement that fails ends the loop with the failed cell.
 */
export async function measureAndDecide(
  cell: CellPlan,
  source: CellSource,
  judge: CellJudge | undefined,
  log: Logger,
): Promise<CellResult> {
  const decided = await decideCell(cell, source, judge, log)
  const { status, disturbed } = decided.verdict
  // A warning annotation in the action: the run's outcome stands, and says it was not reached on a quiet box.
  if (disturbed?.length)
    log.warn(
      `${cell.id}: ${status} reached while the box was disturbed${status === 'pass' ? ' (not a clean pass)' : ''}: ${disturbed.join('; ')}`,
    )
  return decided
}

async function decideCell(
  cell: CellPlan,
  source: CellSource,
  judge: CellJudge | undefined,
  log: Logger,
): Promise<CellResult> {
  const { maxRounds, confirm: times } = cell.target.settings
  let first = await source.measure(0)
  if (!judge) return withDisturbed(first, [first])
  if (first.status !== 'ok') return first
  let judged = judge.decide({ measured: [first] })
  for (let more = judge.moreRounds(first, maxRounds); more > 0; more = judge.moreRounds(first, maxRounds)) {
    log.info(
      `${cell.id}: inconclusive (noise ±${formatPercent(widestBand(judged.verdict))}), measuring ${more} more round${more === 1 ? '' : 's'} (${first.rounds.length + more}/${maxRounds})`,
    )
    first = await source.addRounds(more)
    if (first.status !== 'ok') return first
    judged = judge.decide({ measured: [first] })
  }
  const again: CellResult[] = []
  while (again.length < times && needsConfirmation(judged.verdict)) {
    log.info(
      `${cell.id}: looks regressed (${regressions(judged.verdict)}); re-measuring to confirm (${again.length + 1}/${times}${source.fresh ? ', fresh launch' : ''})`,
    )
    again.push(await source.measure(again.length + 1))
    judged = judge.decide({ measured: [first, ...again], fresh: source.fresh })
  }
  return again.length ? withPooled(judged, [first, ...again]) : judged
}

/**
 * The decided cell with `pooled`, the steady state over every measurement's steady rounds, when they all measured: so
 * the figures no gate compares are read from the rounds the pooled verdict was decided on, not the first alone.
 */
export function withPooled(cell: CellResult, measured: readonly CellResult[]): CellResult {
  if (cell.status !== 'ok' || measured.some((m) => m.status !== 'ok')) return cell
  const rounds = measured.flatMap((m) => m.rounds)
  const metrics = steadyState(rounds)
  if (!metrics) return cell
  const pooled = { measurements: measured.length, rounds: rounds.filter((r) => r.steady).length, metrics }
  return { ...cell, pooled }
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
