/**
 * What one target holds while its cells run — the abort that ends it early, the first fatal
 * reason, the memory guard, the bench client and the running server — and the one `close()`
 * that releases all of it: stop watching memory, close the sockets, then stop the server.
 */
import { createBenchClient, type BenchClient } from '../bench/measure.js'
import { errorMessage } from '../core/errors.js'
import { formatBytes } from '../core/format.js'
import type { Logger } from '../core/log.js'
import type { CellPlan, TargetPlan } from '../core/plan.js'
import type { TargetInfo } from '../core/results.js'
import { httpPorts } from '../engines/http.js'
import { engineByName } from '../engines/registry.js'
import type { EngineAdapter, HttpPorts } from '../engines/types.js'
import type { MeasureCellOptions } from './measure-cell.js'
import {
  dropCaches,
  startMemoryGuard,
  startTarget,
  type MemInfo,
  type RunGuard,
  type RunningTarget,
} from '../server/index.js'

export interface SessionDeps {
  log: Logger
  logDir: string
  /** The run's cancellation. */
  signal: AbortSignal
  onSpawn?: (pgid: number, start?: number) => void
  /** The run's guard (run id, cleanup tasks, watchdog). */
  guard?: RunGuard
  /** Memory reader for the guard (default: /proc/meminfo); tests inject one. */
  readMemory?: () => Promise<MemInfo>
}

export class TargetSession {
  readonly adapter: EngineAdapter
  readonly http: HttpPorts = httpPorts()
  private readonly target: TargetPlan
  private readonly deps: SessionDeps
  private readonly maxConcurrency: number
  private readonly abort = new AbortController()
  private readonly onOuterAbort = (): void => this.abort.abort(this.deps.signal.reason)
  private readonly guard: { stop(): void } | undefined
  private fatalReason: string | undefined
  private deadline: ReturnType<typeof setTimeout> | undefined
  private client: BenchClient | undefined
  private running: RunningTarget | undefined
  private launchedMs: number | undefined
  private enginePid: number | undefined

  /** Starts watching the run's cancellation and, for a target we launch, available memory. */
  constructor(target: TargetPlan, cells: readonly CellPlan[], deps: SessionDeps) {
    this.target = target
    this.deps = deps
    this.adapter = engineByName(target.engine)
    // Connections for the most requests ever in flight: the busiest scenario, or the quality probe.
    const probe = target.settings.quality ? target.settings.quality.concurrency : 1
    this.maxConcurrency = Math.max(
      probe,
      ...cells.map((c) => (c.scenario.rate ? c.scenario.requests : c.scenario.concurrency)),
    )
    deps.signal.addEventListener('abort', this.onOuterAbort, { once: true })
    this.guard = target.external ? undefined : this.watchMemory()
  }

  /** Aborted when the target must end: the run was cancelled, the memory guard tripped, or the engine exited. */
  get signal(): AbortSignal {
    return this.abort.signal
  }

  /** The first reason the target had to end; its remaining cells carry it. */
  get fatal(): string | undefined {
    return this.fatalReason
  }

  fail(reason: string): void {
    this.fatalReason ??= reason
    this.abort.abort(new Error(reason))
  }

  /**
   * Ends the target with `reason` once `ms` have passed, whatever it is doing then (launching, waiting for ready,
   * a round in flight): a bound the caller holds over this session, such as the A/B's `ab-budget`.
   */
  endAfter(ms: number, reason: string): void {
    clearTimeout(this.deadline)
    this.deadline = setTimeout(
      () => {
        this.deps.log.info(`${this.target.id}: ${reason}; stopping it`)
        this.fail(reason)
      },
      Math.max(0, ms),
    )
  }

  /** The target's one bench client, created on first use: the smoke request needs it before the server is ready. */
  benchClient(baseUrl: string): BenchClient {
    const { target } = this
    return (this.client ??= createBenchClient({
      baseUrl,
      adapter: this.adapter,
      model: target.model,
      api: target.settings.api,
      requestTimeoutMs: target.settings.requestTimeoutMs,
      maxConcurrency: this.maxConcurrency,
      requestBody: target.settings.requestBody,
    }))
  }

  /** What a measurement on the server at `baseUrl` needs of this session (`measureCell`'s engine-side options). */
  measuring(baseUrl: string): Pick<MeasureCellOptions, 'adapter' | 'client' | 'http' | 'baseUrl' | 'signal'> {
    return { adapter: this.adapter, client: this.benchClient(baseUrl), http: this.http, baseUrl, signal: this.signal }
  }

  /** Drops the page cache when asked, then launches (or attaches to) the target and waits until it is ready. Throws what `startTarget` throws. */
  async start(): Promise<RunningTarget> {
    const { target, deps } = this
    if (target.settings.dropCaches && !target.external) {
      const warning = await dropCaches()
      if (warning) deps.log.warn(`${target.id}: ${warning}`)
    }
    this.running = await startTarget({
      target,
      adapter: this.adapter,
      logDir: deps.logDir,
      log: deps.log,
      onSpawn: deps.onSpawn,
      guard: deps.guard,
      smoke: (baseUrl) => this.benchClient(baseUrl).smoke(),
      signal: this.signal,
    })
    // The spawn, as the launch's own startup time places it; a `url:` target has none: this run did not launch it.
    const startup = this.running.startup
    this.launchedMs = startup ? performance.now() - startup.totalMs : undefined
    // A container's engine runs under the runtime, not in our group: its first process, read once it is up.
    this.enginePid = await this.running.enginePid?.().catch(() => undefined)
    return this.running
  }

  /** The running engine as a round's host state sees it: when this run launched it (`performance.now()` ms) and its group. */
  get engine(): { launchedAt?: number; pgid?: number; root?: number } {
    return { launchedAt: this.launchedMs, pgid: this.running?.pgid, root: this.enginePid }
  }

  /** Reads the engine's version and launch command; from here on the engine exiting ends the target. */
  async ready(running: RunningTarget): Promise<TargetInfo> {
    const { target } = this
    const info: TargetInfo = { ...(await this.adapter.info(this.http, running.baseUrl)), launch: running.launch }
    if (running.identity) info.container = await running.identity()
    if (info.version) this.deps.log.info(`${target.id}: ${target.engine} ${info.version} ready at ${running.baseUrl}`)
    void running.exited.then((exit) => {
      // A relaunch stops the old process on purpose.
      if (this.running !== running) return
      this.fail(
        `engine exited during measurement (code ${exit.code ?? 'none'}${exit.signal ? `, signal ${exit.signal}` : ''})`,
      )
    })
    return info
  }

  /** Stops the engine and launches it again (`confirm-fresh`); a new process may bind a new port, so the bench client is new too. */
  async relaunch(): Promise<RunningTarget> {
    const old = this.running
    this.running = undefined
    await this.client?.close().catch(() => undefined)
    this.client = undefined
    await old?.stop()
    return this.start()
  }

  async close(): Promise<void> {
    const { target, deps } = this
    clearTimeout(this.deadline)
    this.guard?.stop()
    deps.signal.removeEventListener('abort', this.onOuterAbort)
    await this.client?.close().catch(() => undefined)
    await this.running?.stop().catch((error) => deps.log.warn(`${target.id}: teardown: ${errorMessage(error)}`))
  }

  private watchMemory(): { stop(): void } {
    const { target, deps } = this
    return startMemoryGuard({
      floor: target.settings.memoryFloor,
      read: deps.readMemory,
      onTrip: (mem, floorBytes) => {
        const reason = `memory guard: available memory ${formatBytes(mem.availableBytes)} fell below the floor of ${formatBytes(floorBytes)}; target killed`
        deps.log.error(`${target.id}: ${reason}`)
        this.fail(reason)
        void this.running?.stop()
      },
    })
  }
}
