/** What the server layer gives the layers above it: the launch options, a running target and how it ended. */
import type { MemoryFloor, TargetPlan } from '../core/plan.js'
import type { EngineAdapter, HttpPorts } from '../engines/types.js'
import type { Logger } from '../core/log.js'
import type { ContainerIdentity } from './container.js'
import type { RunGuard } from './guard.js'

export interface StartOptions {
  target: TargetPlan
  adapter: EngineAdapter
  /** `<results-dir>/logs` */
  logDir: string
  log: Logger
  /** Called with the process group id right after spawn, so the runner can save it for the post step. */
  /** A process group was launched: its id and its leader's start time (for checks that it is still ours). */
  onSpawn?: (pgid: number, start?: number) => void
  /** The 1-token streamed request that must succeed once the health endpoint says ready. */
  smoke: (baseUrl: string) => Promise<void>
  signal?: AbortSignal
  /** Progress line interval while loading (default 15 s). */
  progressIntervalMs?: number
  /** Health poll interval (default 200 ms). */
  pollIntervalMs?: number
  /** SIGTERM → SIGKILL grace on teardown (default 4.5 s, inside the runner's 7.5 s cancel window). */
  stopGraceMs?: number
  /** HTTP port for the health probe (default: a loopback client); injected by tests. */
  http?: HttpPorts
  /** The run's guard: its id labels containers, and every cleanup task is registered with it before the launch. */
  guard?: RunGuard
}

export interface ExitInfo {
  code: number | null
  signal: string | null
}

export interface RunningTarget {
  baseUrl: string
  port: number
  /** Launch command as run; undefined for `url:` targets. */
  launch?: string
  pgid?: number
  logPath?: string
  /** Resolves if the engine process exits on its own (never for url: targets). */
  exited: Promise<ExitInfo>
  /** Last lines of the log, escaped of nothing (report escapes). */
  logTail(lines?: number): string
  /** SIGTERM the group, SIGKILL after a grace period, wait for the port to be free. Idempotent. */
  stop(): Promise<void>
  /** A `container:` target's runtime and image, as the runtime reports them. */
  identity?(): Promise<ContainerIdentity>
  /** A `container:` target's first process on this host, where its engine runs outside our process group. */
  enginePid?(): Promise<number | undefined>
  /** How long the launch took to come up (launched targets only; a `url:` target was up before we came). */
  startup?: StartupTimes
}

/**
 * From spawning the launch command. A `container:` target's image, when the runtime lacks it, is pulled before the
 * spawn and its `run` gets `--pull=never`, so no pull is inside `readyMs`; the pull is timed apart as `pullMs`.
 */
export interface StartupTimes {
  /** Until the health endpoint's first ready answer. */
  readyMs: number
  /** Until the smoke request was answered: the engine serves. */
  totalMs: number
  /** The image pull before the spawn; absent when the image was present (no pull happened) or nothing is pulled. */
  pullMs?: number
}

export interface MemInfo {
  availableBytes: number
  totalBytes: number
}

export interface MemoryGuardOptions {
  floor: MemoryFloor
  read?: () => Promise<MemInfo>
  intervalMs?: number
  onTrip: (info: MemInfo, floorBytes: number) => void
}
