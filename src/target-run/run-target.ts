/**
 * One target's life: launch, wait until ready, measure each cell (with more warm rounds while it is
 * undecided, and re-measuring a cell that looks regressed before teardown), and tear down — whatever
 * happens in between; then, on a pull request, the same-box A/B of the cells that want one (same-box.ts).
 */
import { dirname } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { errorCell, measuredCell, type CellExtras } from './cell-result.js'
import { StartError, errorMessage } from '../core/errors.js'
import type { CellPlan, TargetPlan } from '../core/plan.js'
import type { CellJudge } from '../compare/index.js'
import type { CellHost } from '../core/host.js'
import type { CellResult, TargetInfo } from '../core/results.js'
import { preflightTarget, readyScope, roundWatch, targetHost, type HostDeps } from './host-check.js'
import { boxRoundWatch, withBoxWatch } from './box-round.js'
import {
  measureAndDecide,
  measureCell,
  type CellSource,
  type MeasureCellOptions,
  type MeasuredCell,
} from './measure-cell.js'
import { engineByName } from '../engines/registry.js'
import { runExternalTarget } from './external-target.js'
import { runProbe, type ProbeRun } from './probe-run.js'
import type { RunningTarget } from '../server/index.js'
import { TargetSession, type SessionDeps } from './session.js'
import { sameBoxTest, type SameBoxRun } from './same-box.js'
import { RequestRecorder } from './request-files.js'
import { rooflineBox, withRoofline } from './roofline-box.js'
import type { RooflineBox } from '../compare/roofline-ceiling.js'

export interface TargetRunDeps extends SessionDeps {
  seed: number
  /** Judges a measured cell against the baseline; absent in `run` mode. */
  judge?: CellJudge
  /** How the host is read before launch and watched during rounds. */
  host?: HostDeps
  /** The run's same-box A/B (its base arm, budget and setups); absent when the run runs none. */
  sameBox?: SameBoxRun
}

/** What the cells of a started target share. */
interface Started {
  session: TargetSession
  running: RunningTarget
  info: TargetInfo
  deps: TargetRunDeps
  /** The target's quality probe; absent with `quality: false`. */
  probe?: ProbeRun
  host: CellHost
  watch: MeasureCellOptions['watch']
  /** The target's first launch's startup and image pull: what its cells record, whatever a `confirm-fresh` relaunch took. */
  launch: LaunchFigures
  /** The box's bandwidth and the model's bytes each cell's roofline is drawn from (roofline-box.ts). */
  box?: RooflineBox
}

/** A launch's figures a cell records: `startup_s` and, when the image was pulled before it, `image_pull_s`. */
export type LaunchFigures = Pick<CellExtras, 'startupS' | 'imagePullS'>

const EXIT_SETTLE_MS = 1000
/** Seed distance between a cell's measurement and its re-measurements, so none repeats another's arrivals. */
const CONFIRM_SEED_STRIDE = 1000

/** Runs every cell of one target, then its same-box A/B; never throws, every failure becomes an `error` cell. */
export async function runTarget(target: TargetPlan, cells: CellPlan[], deps: TargetRunDeps): Promise<CellResult[]> {
  if (engineByName(target.engine).measuresItself) return runExternalTarget(target, cells, deps)
  const started = Date.now()
  const own = await launchedTarget(target, cells, deps)
  const { sameBox, judge } = deps
  return sameBox && judge ? sameBoxTest(target, cells, own, Date.now() - started, sameBox, { ...deps, judge }) : own
}

/** The target launched here: preflight, start, probe, its cells measured and judged, teardown. */
async function launchedTarget(target: TargetPlan, cells: CellPlan[], deps: TargetRunDeps): Promise<CellResult[]> {
  const hostDeps: HostDeps = { readMemory: deps.readMemory, guard: deps.guard, ...deps.host }
  const preflight = await preflightTarget(target, hostDeps, deps.log)
  if (preflight.problem) {
    deps.log.error(`${target.id}: ${preflight.problem}`)
    const host = await targetHost(target, preflight.state, {}, preflight.scope)
    return failAll(cells, preflight.problem, { launch: target.launch }, host)
  }
  const session = new TargetSession(target, cells, deps)
  try {
    let running: RunningTarget
    try {
      running = await session.start()
    } catch (error) {
      const message = session.fatal ?? errorMessage(error)
      const started = error instanceof StartError ? error : undefined
      deps.log.error(message)
      const host = await targetHost(target, preflight.state, {}, preflight.scope)
      return failAll(
        cells,
        message,
        { logTail: started?.logTail || undefined, launch: started?.launch ?? target.launch },
        host,
      )
    }
    const info = await session.ready(running)
    const scope = await readyScope(target, preflight, running.pgid, hostDeps, deps.log)
    const host = await targetHost(target, preflight.state, info, scope)
    let probe: ProbeRun | undefined
    try {
      probe = await probeTarget(target, session, running)
    } catch (error) {
      const message = session.fatal ?? errorMessage(error)
      deps.log.error(`${target.id}: ${message}`)
      return failAll(cells, message, { ...info, logTail: running.logTail() }, host)
    }
    if (probe) deps.log.info(`${target.id}: ${probe.summary}`)
    return await runCells(cells, {
      session,
      running,
      info,
      deps,
      probe,
      host,
      watch: withBoxWatch(
        roundWatch(preflight.state, hostDeps, scope),
        boxRoundWatch({ target, preflight, deps: hostDeps, scope, engine: () => session.engine }),
      ),
      launch: launchFigures(running),
      box: await rooflineBox(target, preflight.state, info),
    })
  } finally {
    await session.close()
  }
}

/**
 * A launch's startup (spawn to the smoke request's answer) and the image pull before it, seconds to the
 * millisecond; none when nothing was launched, no pull when the image was present.
 */
export function launchFigures(running: RunningTarget): LaunchFigures {
  const seconds = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms) / 1000)
  const { startup } = running
  if (!startup) return {}
  const imagePullS = seconds(startup.pullMs)
  return { startupS: seconds(startup.totalMs), ...(imagePullS !== undefined && { imagePullS }) }
}

/** Every cell of the target an `error` with the same reason, target facts and host record. */
function failAll(cells: CellPlan[], reason: string, info: TargetInfo, host: CellHost): CellResult[] {
  return cells.map((c) => ({ ...errorCell(c, reason, info), host }))
}

/** The quality probe after readiness, before any cell is measured; none with `quality: false`. */
async function probeTarget(
  target: TargetPlan,
  session: TargetSession,
  running: RunningTarget,
): Promise<ProbeRun | undefined> {
  const settings = target.settings.quality
  if (!settings) return undefined
  return runProbe(
    session.benchClient(running.baseUrl),
    settings,
    target.settings.api,
    session.signal,
    target.settings.maxErrorShare,
    target.scenarios[0]?.inputTokens,
  )
}

/** The cells in order; once the target has ended, the rest are errors carrying the reason. */
async function runCells(cells: CellPlan[], started: Started): Promise<CellResult[]> {
  const { session, deps } = started
  const results: CellResult[] = []
  for (const [index, cell] of cells.entries()) {
    if (session.fatal || session.signal.aborted) {
      results.push(
        errorCell(cell, session.fatal ?? 'cancelled', { ...started.info, logTail: started.running.logTail() }),
      )
      continue
    }
    try {
      results.push(await runCell(cell, index, started))
    } catch (error) {
      const reason = session.fatal ?? (deps.signal.aborted ? 'cancelled' : errorMessage(error))
      deps.log.error(`${cell.id}: ${reason}`)
      results.push(errorCell(cell, reason, { ...started.info, logTail: started.running.logTail() }))
    }
  }
  return results
}

/** Measures one cell and, when the run compares, decides it (more rounds while undecided, confirmation while it looks regressed). */
function runCell(cell: CellPlan, index: number, started: Started): Promise<CellResult> {
  return measureAndDecide(cell, launchedSource(cell, index, started), started.deps.judge, started.deps.log)
}

/** A cell's measurements on the running target: the first, its added warm rounds, and re-measurements (after a relaunch with `confirm-fresh`). */
function launchedSource(cell: CellPlan, index: number, started: Started): CellSource {
  const { session, deps } = started
  const fresh = cell.target.settings.confirmFresh && !cell.target.external
  // The results folder holds the logs folder (run/measure-targets.ts).
  const recorder = new RequestRecorder(dirname(deps.logDir), cell.id, deps.log)
  const measure = (attempt: number, extend?: MeasureCellOptions['extend']): Promise<MeasuredCell> =>
    measureCell({
      ...session.measuring(started.running.baseUrl),
      cell,
      log: deps.log,
      seed: deps.seed + index + CONFIRM_SEED_STRIDE * attempt,
      extend,
      watch: started.watch,
      onSteadyRound: (round, records) => recorder.round(round, records),
    })
  // The first measurement, which added rounds extend and whose spec-decode figures and cache reset they keep.
  let first: MeasuredCell | undefined
  let firstReset: MeasuredCell['prefixCacheReset']
  const settled = async (m: MeasuredCell, specDecode = m.specDecode, launch = started.launch): Promise<CellResult> => {
    // A dying engine closes its sockets before its exit is reported: when requests failed,
    // give the exit a moment to arrive so the cell names the cause, not its symptoms.
    if (m.measurement.errors.length) await Promise.race([started.running.exited, delay(EXIT_SETTLE_MS)])
    if (session.fatal) throw new Error(session.fatal)
    const { probe, host } = started
    const files = { prefixCacheReset: m.prefixCacheReset ?? firstReset, requestFiles: recorder.files }
    const measured = measuredCell(cell, m.measurement, started.info, { specDecode, probe, host, ...launch, ...files })
    return withRoofline(measured, started.box)
  }
  return {
    fresh,
    async measure(attempt) {
      if (attempt === 0) {
        first = await measure(0)
        firstReset = first.prefixCacheReset
        return settled(first)
      }
      if (!fresh) return settled(await measure(attempt))
      await relaunch(cell, started)
      // A fresh re-measurement carries its own launch's startup: the pooled confirmation judges every launch.
      const m = await measure(attempt)
      return settled(m, m.specDecode, launchFigures(started.running))
    },
    async addRounds(rounds) {
      if (!first) throw new Error(`${cell.id}: rounds added before the first measurement`)
      const specDecode = first.specDecode
      return settled((first = await measure(0, { after: first.measurement, rounds })), specDecode)
    },
  }
}

/** `confirm-fresh`: the engine is stopped and launched again before a re-measurement, so it carries a launch of its own. */
async function relaunch(cell: CellPlan, started: Started): Promise<void> {
  started.deps.log.info(`${cell.id}: relaunching ${cell.target.id} for a fresh re-measurement`)
  try {
    started.running = await started.session.relaunch()
  } catch (error) {
    // Nothing runs any more: this cell and the target's remaining ones carry the reason.
    started.session.fail(`relaunch for a fresh re-measurement failed: ${errorMessage(error)}`)
    throw error
  }
  started.info = await started.session.ready(started.running)
}
