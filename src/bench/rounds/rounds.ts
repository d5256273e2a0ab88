/**
 * A cell's rounds, one after another on a calibrated prompt, reduced to per-round statistics,
 * the steady state and the cell flags.
 */
import type { ScenarioPlan } from '../../core/plan.js'
import { RequestError } from '../../core/errors.js'
import type { ErrorCount, MetricsBlock, RequestRecord, RoundResult } from '../../core/measurements.js'
import type { RoundServer } from '../../core/server-counters.js'
import type { RoundWatch, WatchedRound } from '../../core/telemetry.js'
import type { Calibration } from '../prompts/calibrate.js'
import { cellFlags } from './flags.js'
import type { DegenerateTally } from '../../core/quality.js'
import { tallyDegenerate } from '../../quality/index.js'
import { countReasons, roundWindow, steadyState, summarizeRound } from './round.js'
import { runRound, type RoundRun } from './run-round.js'
import { runConversations, type ConversationSource } from './conversation.js'
import { withTurns } from './turns.js'

export interface RoundProgress {
  round: number
  rounds: number
  done: number
  total: number
  errors: number
  /** Output tokens per second so far in this round. */
  tokensPerSecond: number
}

export interface MeasureOptions {
  scenario: ScenarioPlan
  rounds: number
  discard: number
  maxErrorShare: number
  seed: number
  /** Called when each round ends, and during a long round every `progressIntervalMs`. */
  onRound?: (p: RoundProgress) => void
  signal?: AbortSignal
  /** Mid-round progress interval (default 30 s). */
  progressIntervalMs?: number
  /**
   * A measurement of the same cell on the same server to add `rounds` more warm rounds to (adaptive rounds): the
   * new rounds are all steady, and the steady state and flags are recomputed over every round.
   */
  after?: CellMeasurement
  /**
   * Called before each steady round; the function it returns is called with the round's window after the round,
   * names what disturbed it (a GPU slowdown, an SM clock drop), if anything, and gives the GPUs' telemetry,
   * recorded as the round's `gpu`. A disturbed round is measured again, at most `MAX_REMEASURES` times a cell.
   */
  watch?: RoundWatch
  /**
   * Tokens per verify step of a steady round from its engine counters (`rounds[].server`) and requests, where the
   * engine drafts (EngineAdapter.roundAcceptance): the round then records the spec-decode split.
   */
  acceptance?: (server: RoundServer | undefined, records: readonly RequestRecord[]) => number | undefined
  /** Called when a disturbed round is about to be measured again (`again` of `max`). */
  onDisturbed?: (d: { round: number; reason: string; again: number; max: number }) => void
  /** Called right before the measurement's first round (not before rounds added to one): the prefix-cache reset. */
  beforeCold?: () => Promise<void>
  /** Called with each steady round kept and its requests (the per-request record, target-run/request-files.ts). */
  onSteadyRound?: (round: RoundResult, records: readonly RequestRecord[]) => void
}

/** Re-measurements of disturbed rounds per measurement; past it the round is kept and the cell flagged. */
export const MAX_REMEASURES = 2
/** The flag of a round kept although disturbed: the cell is then not compared. */
export const THROTTLED_FLAG = 'throttled'

export interface Remeasure {
  /** Round index (from 0). */
  round: number
  reason: string
}

export interface CellMeasurement {
  rounds: RoundResult[]
  /** Steady state: mean of each round statistic over rounds >= discard; null when no request succeeded. */
  metrics: MetricsBlock | null
  /** `lengths-missed: prompt 1000/1024`, `usage-missing`, `errors: 3/8 in round 2`, … */
  flags: string[]
  /** Every request of the kept rounds (for spec-decode stream counters). */
  requests: RequestRecord[]
  errors: ErrorCount[]
  /** Degenerate output among the kept rounds' successful responses. */
  degenerate: DegenerateTally
  /** Rounds measured again because something disturbed them (see `MeasureOptions.watch`). */
  remeasured?: Remeasure[]
}

const DEFAULT_PROGRESS_MS = 30_000

/**
 * Runs `o.rounds` rounds (fewer when aborted, which then throws) with `send` streaming each request, after `o.after`'s
 * when given. `prepare`, when given, runs before each round (a measured-again one too), outside its timing. With
 * `conversation` (a `turns` scenario) each of a round's requests is a conversation (conversation.ts).
 */
export async function runRounds(
  o: MeasureOptions,
  calibration: Calibration,
  send: RoundRun['send'],
  prepare?: (requests: number, signal?: AbortSignal) => Promise<void>,
  conversation?: ConversationSource,
): Promise<CellMeasurement> {
  const { scenario } = o
  const first = o.after?.rounds.length ?? 0
  const total = first + o.rounds
  // The last round is always steady, whatever `discard` says; rounds added to a measurement are all warm.
  const discard = o.after ? 0 : Math.max(0, Math.min(o.discard, o.rounds - 1))
  const rounds: RoundResult[] = [...(o.after?.rounds ?? [])]
  const kept: RequestRecord[] = [...(o.after?.requests ?? [])]
  const remeasured: Remeasure[] = [...(o.after?.remeasured ?? [])]
  const extraFlags = (o.after?.flags ?? []).filter((f) => f.startsWith(`${THROTTLED_FLAG}:`))
  let again = 0
  for (let r = first; r < total && !o.signal?.aborted; r++) {
    const steady = r >= discard
    await prepare?.(scenario.requests, o.signal)
    // A discarded round does not count, so what disturbed it does not matter.
    const end = steady ? await o.watch?.() : undefined
    let round: Awaited<ReturnType<typeof oneRound>>
    try {
      round = await oneRound(o, calibration, send, { r, total, steady, conversation })
    } catch (error) {
      // The watch's sampler ends with the round, however the round ended.
      await end?.({ startMs: 0, endMs: 0 }).catch(() => undefined)
      throw error
    }
    const { result, records } = round
    const watched = await end?.(roundWindow(records, result))
    if (watched) withTelemetry(result, records, watched)
    if (steady) withSplit(result, records, o.acceptance)
    const disturbed = watched?.disturbed
    if (disturbed && !o.signal?.aborted) {
      if (again < MAX_REMEASURES) {
        again++
        remeasured.push({ round: r, reason: disturbed })
        o.onDisturbed?.({ round: r, reason: disturbed, again, max: MAX_REMEASURES })
        r--
        continue
      }
      extraFlags.push(`${THROTTLED_FLAG}: round ${r + 1} (${disturbed}) kept after ${MAX_REMEASURES} re-measurements`)
    }
    rounds.push(result)
    if (result.steady) kept.push(...records)
    if (result.steady) o.onSteadyRound?.(result, records)
  }
  if (o.signal?.aborted) throw new RequestError('measurement aborted', 'aborted')
  return {
    rounds,
    metrics: steadyState(rounds),
    flags: [...cellFlags(scenario, rounds, kept, o.maxErrorShare), ...extraFlags],
    requests: kept,
    errors: mergeErrors(rounds),
    degenerate: tallyDegenerate(kept.flatMap((r) => (r.output ? [r.output] : []))),
    ...(remeasured.length && { remeasured }),
  }
}

/** Runs and summarizes round `r` of `total`. */
async function oneRound(
  o: MeasureOptions,
  calibration: Calibration,
  send: RoundRun['send'],
  at: { r: number; total: number; steady: boolean; conversation?: ConversationSource },
) {
  const { scenario } = o
  const { r, total, steady } = at
  // The measurement's first round, a measured-again one too; rounds added to a measurement have none.
  if (r === 0 && !o.after) await o.beforeCold?.()
  const progress = (done: number, errors: number, tokensPerSecond: number) =>
    o.onRound?.({
      round: r,
      rounds: total,
      done,
      total: scenario.requests * (scenario.turns ?? 1),
      errors,
      tokensPerSecond,
    })
  const run = {
    scenario,
    round: r,
    rounds: total,
    seed: o.seed,
    calibration,
    send,
    signal: o.signal,
    progress: o.onRound ? progress : undefined,
    progressIntervalMs: o.progressIntervalMs ?? DEFAULT_PROGRESS_MS,
  }
  const records = at.conversation ? await runConversations(run, at.conversation) : await runRound(run)
  const concurrency = scenario.rate ? null : Math.min(scenario.concurrency, scenario.requests)
  const result = summarizeRound(
    { index: r, steady, concurrency, endedAt: performance.now(), ...(scenario.slo && { slo: scenario.slo }) },
    records,
  )
  if (scenario.turns) withTurns(result, records)
  progress(records.length, result.errors, result.metrics.output_tps)
  return { result, records }
}

/** The round's GPU record and, where the GPUs reported power, its energy per output token (J/token). */
function withTelemetry(result: RoundResult, records: readonly RequestRecord[], watched: WatchedRound): void {
  if (watched.server) result.server = watched.server
  if (watched.host) result.host = watched.host
  if (!watched.gpu) return
  result.gpu = watched.gpu
  const tokens = records.reduce((n, r) => n + (r.ok ? r.outputTokens : 0), 0)
  if (watched.gpu.energyJ !== undefined && tokens > 0) result.metrics.energy_j_per_token = watched.gpu.energyJ / tokens
}

/**
 * The round's spec-decode split where the engine drafted: its acceptance length, and the verify step's time as
 * acceptance length ÷ the round's decode tok/s, so that decode = acceptance length ÷ step time holds by construction.
 */
function withSplit(result: RoundResult, records: readonly RequestRecord[], acceptance: MeasureOptions['acceptance']) {
  const length = acceptance?.(result.server, records)
  const decode = result.metrics.decode_tps.mean
  if (length === undefined || !(length >= 1) || !Number.isFinite(length) || !(decode > 0)) return
  result.metrics.accept_length = length
  result.metrics.step_ms = (1000 * length) / decode
}

function mergeErrors(rounds: readonly RoundResult[]): ErrorCount[] {
  return countReasons(rounds.flatMap((r) => r.errorReasons.map((e) => [e.reason, e.count] as const)))
}
