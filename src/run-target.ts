/**
 * One target's life: launch, wait until ready, measure each cell (re-measuring a cell that
 * looks regressed before teardown), and tear down — whatever happens in between.
 */
import { setTimeout as delay } from 'node:timers/promises'
import { createBenchClient, type BenchClient, type CellMeasurement } from './bench/measure.js'
import { errorCell, measuredCell } from './cells.js'
import { formatBytes } from './core/format.js'
import type { CellPlan, TargetPlan } from './core/plan.js'
import { engineByName } from './engines/registry.js'
import { httpPorts } from './engines/http.js'
import type { EngineAdapter } from './engines/types.js'
import { StartError, errorMessage } from './core/errors.js'
import type { Logger } from './core/log.js'
import type { CellResult, CellVerdict, TargetInfo } from './core/results.js'
import { dropCaches, startMemoryGuard, startTarget, type MemInfo, type RunningTarget } from './server/index.js'
import { confirmVerdict, needsConfirmation } from './compare/index.js'

export interface TargetRunDeps {
  log: Logger
  logDir: string
  signal: AbortSignal
  seed: number
  onSpawn?: (pgid: number) => void
  /** Judges a measured cell against the baseline; absent in `run` mode. */
  judge?: (cell: CellResult) => CellVerdict
  /** Memory reader for the guard (default: /proc/meminfo); tests inject one. */
  readMemory?: () => Promise<MemInfo>
}

const EXIT_SETTLE_MS = 1000

/** Runs every cell of one target; never throws, every failure becomes an `error` cell. */
export async function runTarget(target: TargetPlan, cells: CellPlan[], deps: TargetRunDeps): Promise<CellResult[]> {
  const { log } = deps
  const adapter = engineByName(target.engine)
  const http = httpPorts()
  const abort = new AbortController()
  const onOuterAbort = () => abort.abort(deps.signal.reason)
  deps.signal.addEventListener('abort', onOuterAbort, { once: true })
  let fatal: string | undefined
  const fail = (reason: string) => {
    fatal ??= reason
    abort.abort(new Error(reason))
  }

  let running: RunningTarget | undefined
  let client: BenchClient | undefined
  let info: TargetInfo = {}
  const results: CellResult[] = []
  const maxConcurrency = Math.max(...cells.map((c) => (c.scenario.rate ? c.scenario.requests : c.scenario.concurrency)))
  const clientFor = (baseUrl: string) =>
    (client ??= createBenchClient({
      baseUrl,
      adapter,
      model: target.model,
      api: target.settings.api,
      requestTimeoutMs: target.settings.requestTimeoutMs,
      maxConcurrency,
    }))

  const guard = target.external
    ? undefined
    : startMemoryGuard({
        floor: target.settings.memoryFloor,
        read: deps.readMemory,
        onTrip: (mem, floorBytes) => {
          const reason = `memory guard: available memory ${formatBytes(mem.availableBytes)} fell below the floor of ${formatBytes(floorBytes)}; target killed`
          log.error(`${target.id}: ${reason}`)
          fail(reason)
          void running?.stop()
        },
      })

  try {
    if (target.settings.dropCaches && !target.external) {
      const warning = await dropCaches()
      if (warning) log.warn(`${target.id}: ${warning}`)
    }
    try {
      running = await startTarget({
        target,
        adapter,
        logDir: deps.logDir,
        log,
        onSpawn: deps.onSpawn,
        smoke: (baseUrl) => clientFor(baseUrl).smoke(),
        signal: abort.signal,
      })
    } catch (error) {
      const message = fatal ?? errorMessage(error)
      const tail = error instanceof StartError ? error.logTail : ''
      log.error(message)
      return cells.map((c) => errorCell(c, message, { logTail: tail || undefined, launch: target.launch }))
    }
    const started = running
    info = { ...(await adapter.info(http, started.baseUrl)), launch: started.launch ?? info.launch }
    if (info.version) log.info(`${target.id}: ${target.engine} ${info.version} ready at ${started.baseUrl}`)
    void started.exited.then((exit) => {
      fail(`engine exited during measurement (code ${exit.code ?? 'none'}${exit.signal ? `, signal ${exit.signal}` : ''})`)
    })

    for (const [index, cell] of cells.entries()) {
      if (fatal || abort.signal.aborted) {
        results.push(errorCell(cell, fatal ?? 'cancelled', { ...info, logTail: started.logTail() }))
        continue
      }
      try {
        const measured = await measureCell(cell, adapter, clientFor(started.baseUrl), http, started.baseUrl, deps, abort.signal, index)
        // A dying engine closes its sockets before its exit is reported: when requests failed,
        // give the exit a moment to arrive so the cell names the cause, not its symptoms.
        if (measured.m.errors.length) await Promise.race([started.exited, delay(EXIT_SETTLE_MS)])
        if (fatal) throw new Error(fatal)
        const result = measuredCell(cell, measured.m, info, measured.spec)
        if (deps.judge && result.status === 'ok') {
          result.verdict = deps.judge(result)
          for (let i = 0; i < target.settings.confirm && needsConfirmation(result.verdict); i++) {
            log.info(`${cell.id}: looks regressed (${summarise(result.verdict)}); re-measuring to confirm (${i + 1}/${target.settings.confirm})`)
            const again = await measureCell(cell, adapter, clientFor(started.baseUrl), http, started.baseUrl, deps, abort.signal, index + 1000 * (i + 1))
            const second = measuredCell(cell, again.m, info, again.spec)
            second.verdict = second.status === 'ok' ? deps.judge(second) : second.verdict
            result.verdict = confirmVerdict(result.verdict, second.verdict)
          }
        }
        results.push(result)
      } catch (error) {
        const reason = fatal ?? (deps.signal.aborted ? 'cancelled' : errorMessage(error))
        log.error(`${cell.id}: ${reason}`)
        results.push(errorCell(cell, reason, { ...info, logTail: started.logTail() }))
      }
    }
    return results
  } finally {
    guard?.stop()
    deps.signal.removeEventListener('abort', onOuterAbort)
    await client?.close().catch(() => undefined)
    await running?.stop().catch((error) => log.warn(`${target.id}: teardown: ${errorMessage(error)}`))
  }
}

function summarise(verdict: CellVerdict): string {
  return Object.values(verdict.metrics)
    .filter((m) => m?.status === 'regression')
    .map((m) => m!.reason)
    .join('; ')
}

async function measureCell(
  cell: CellPlan,
  adapter: EngineAdapter,
  client: BenchClient,
  http: ReturnType<typeof httpPorts>,
  baseUrl: string,
  deps: TargetRunDeps,
  signal: AbortSignal,
  seedOffset: number,
): Promise<{ m: CellMeasurement; spec: ReturnType<NonNullable<EngineAdapter['specDecode']>> }> {
  const { settings } = cell.target
  const before = await adapter.counters?.(http, baseUrl)
  const m = await client.measure({
    scenario: cell.scenario,
    rounds: settings.rounds,
    discard: settings.discard,
    maxErrorShare: settings.maxErrorShare,
    seed: deps.seed + seedOffset,
    signal,
    onRound: (p) =>
      deps.log.info(
        `${cell.id}: round ${p.round + 1}/${p.rounds}: ${p.done}/${p.total} requests${p.errors ? `, ${p.errors} failed` : ''}, ${p.tokensPerSecond.toFixed(1)} tok/s`,
      ),
  })
  const after = await adapter.counters?.(http, baseUrl)
  return { m, spec: adapter.specDecode?.(before, after, m.requests) }
}
