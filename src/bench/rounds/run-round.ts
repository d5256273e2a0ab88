/** One round of a cell: schedule the requests, stream them, and keep a running tally for progress lines. */
import type { ScenarioPlan } from '../../core/plan.js'
import type { Calibration } from '../prompts/calibrate.js'
import { toRecord } from '../stream/record.js'
import type { StreamOutcome } from '../stream/request.js'
import { closedLoop, openLoop, poissonArrivals } from '../stream/schedule.js'
import type { RequestRecord } from '../../core/measurements.js'

export interface RoundRun {
  scenario: ScenarioPlan
  round: number
  rounds: number
  seed: number
  calibration: Calibration
  /** Streams one request with `maxTokens` and a fresh unique prompt of `fillerWords` filler. */
  send: (fillerWords: number, maxTokens: number, signal?: AbortSignal) => Promise<StreamOutcome>
  signal?: AbortSignal
  progress?: (done: number, errors: number, tokensPerSecond: number) => void
  progressIntervalMs: number
}

export async function runRound(o: RoundRun): Promise<RequestRecord[]> {
  const { scenario, round, calibration } = o
  let done = 0
  let errors = 0
  let tokens = 0
  let firstSend = Infinity
  const report = () =>
    o.progress?.(done, errors, firstSend < Infinity ? (tokens * 1000) / (performance.now() - firstSend) : 0)
  const ticker = o.progress ? setInterval(report, o.progressIntervalMs) : undefined
  ticker?.unref()

  const one = async (i: number, dueAt: number): Promise<RequestRecord> => {
    const outcome = await o.send(calibration.fillerWords, scenario.outputTokens, o.signal)
    const endedAt = performance.now()
    firstSend = Math.min(firstSend, outcome.sentAt)
    const index = round * scenario.requests + i
    const record = toRecord(
      { index, queueMs: outcome.sentAt - dueAt, expectedPromptTokens: calibration.promptTokens },
      outcome,
    )
    record.endMs = endedAt - outcome.sentAt
    done++
    if (record.ok) tokens += record.outputTokens
    else errors++
    return record
  }
  try {
    return scenario.rate
      ? await openLoop(poissonArrivals(scenario.requests, scenario.rate, o.seed + round), one, o.signal)
      : await closedLoop(scenario.requests, scenario.concurrency, one, o.signal)
  } finally {
    if (ticker) clearInterval(ticker)
  }
}
