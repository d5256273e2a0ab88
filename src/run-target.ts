/**
 * One target's life: launch, wait until ready, measure each cell (re-measuring a cell that
 * looks regressed before teardown), and tear down — whatever happens in between.
 */
import { setTimeout as delay } from 'node:timers/promises'
import { errorCell, measuredCell } from './cells.js'
import { StartError, errorMessage } from './core/errors.js'
import type { CellPlan, TargetPlan } from './core/plan.js'
import type { CellResult, CellVerdict, TargetInfo } from './core/results.js'
import { judgeAndConfirm, measureCell, type MeasuredCell } from './measure-cell.js'
import { runProbe, type ProbeRun } from './probe.js'
import type { RunningTarget } from './server/index.js'
import { TargetSession, type SessionDeps } from './target-session.js'

export interface TargetRunDeps extends SessionDeps {
  seed: number
  /** Judges a measured cell against the baseline; absent in `run` mode. */
  judge?: (cell: CellResult) => CellVerdict
}

/** What the cells of a started target share. */
interface Started {
  session: TargetSession
  running: RunningTarget
  info: TargetInfo
  deps: TargetRunDeps
  /** The target's quality probe; absent with `quality: false`. */
  probe?: ProbeRun
}

const EXIT_SETTLE_MS = 1000
/** Seed distance between a cell's measurement and its re-measurements, so none repeats another's arrivals. */
const CONFIRM_SEED_STRIDE = 1000

/** Runs every cell of one target; never throws, every failure becomes an `error` cell. */
export async function runTarget(target: TargetPlan, cells: CellPlan[], deps: TargetRunDeps): Promise<CellResult[]> {
  const session = new TargetSession(target, cells, deps)
  try {
    let running: RunningTarget
    try {
      running = await session.start()
    } catch (error) {
      const message = session.fatal ?? errorMessage(error)
      const started = error instanceof StartError ? error : undefined
      deps.log.error(message)
      return cells.map((c) => errorCell(c, message, { logTail: started?.logTail || undefined, launch: started?.launch ?? target.launch }))
    }
    const info = await session.ready(running)
    let probe: ProbeRun | undefined
    try {
      probe = await probeTarget(target, session, running)
    } catch (error) {
      const message = session.fatal ?? errorMessage(error)
      deps.log.error(`${target.id}: ${message}`)
      return cells.map((c) => errorCell(c, message, { ...info, logTail: running.logTail() }))
    }
    if (probe) deps.log.info(`${target.id}: ${probe.summary}`)
    return await runCells(cells, { session, running, info, deps, probe })
  } finally {
    await session.close()
  }
}

/** The quality probe after readiness, before any cell is measured; none with `quality: false`. */
async function probeTarget(target: TargetPlan, session: TargetSession, running: RunningTarget): Promise<ProbeRun | undefined> {
  const settings = target.settings.quality
  if (!settings) return undefined
  return runProbe(session.benchClient(running.baseUrl), settings, target.settings.api, session.signal)
}

/** The cells in order; once the target has ended, the rest are errors carrying the reason. */
async function runCells(cells: CellPlan[], started: Started): Promise<CellResult[]> {
  const { session, running, info, deps } = started
  const results: CellResult[] = []
  for (const [index, cell] of cells.entries()) {
    if (session.fatal || session.signal.aborted) {
      results.push(errorCell(cell, session.fatal ?? 'cancelled', { ...info, logTail: running.logTail() }))
      continue
    }
    try {
      results.push(await runCell(cell, index, started))
    } catch (error) {
      const reason = session.fatal ?? (deps.signal.aborted ? 'cancelled' : errorMessage(error))
      deps.log.error(`${cell.id}: ${reason}`)
      results.push(errorCell(cell, reason, { ...info, logTail: running.logTail() }))
    }
  }
  return results
}

/** Measures one cell and, when the run compares, judges it and confirms a verdict that looks regressed. */
async function runCell(cell: CellPlan, index: number, started: Started): Promise<CellResult> {
  const { session, running, info, deps } = started
  const measure = (attempt: number): Promise<MeasuredCell> =>
    measureCell({
      cell,
      adapter: session.adapter,
      client: session.benchClient(running.baseUrl),
      http: session.http,
      baseUrl: running.baseUrl,
      log: deps.log,
      seed: deps.seed + index + CONFIRM_SEED_STRIDE * attempt,
      signal: session.signal,
    })
  const toResult = (m: MeasuredCell) => measuredCell(cell, m.measurement, info, { specDecode: m.specDecode, probe: started.probe })

  const first = await measure(0)
  // A dying engine closes its sockets before its exit is reported: when requests failed,
  // give the exit a moment to arrive so the cell names the cause, not its symptoms.
  if (first.measurement.errors.length) await Promise.race([running.exited, delay(EXIT_SETTLE_MS)])
  if (session.fatal) throw new Error(session.fatal)
  const result = toResult(first)
  if (!deps.judge || result.status !== 'ok') return result
  return judgeAndConfirm(result, { cell, judge: deps.judge, log: deps.log, remeasure: async (attempt) => toResult(await measure(attempt)) })
}
