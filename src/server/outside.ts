/**
 * What a launched target has outside its process group — its container, its `stop:` command —
 * set up before the launch (registered with the run's guard first, so nothing can start that the
 * cleanup does not know about) and undone after the group is signalled on teardown.
 */
import { fillPort, fillRuntime } from '../config/index.js'
import type { TargetPlan } from '../core/plan.js'
import {
  containerExitCode,
  containerIdentity,
  containerPid,
  containerName,
  containerRunning,
  detectRuntime,
  removeContainer,
  runCommand,
  type ContainerIdentity,
  type Runtime,
} from './container.js'
import { runStop, type Sink, type StopTask } from './cleanup.js'
import type { RunGuard } from './guard.js'
import type { ExitInfo } from './types.js'

const EXIT_POLL_MS = 1000

export interface Outside {
  /** The command the group runs: the target's launch, or the composed `run`. */
  command: string
  /** The engine's exit: the group's, or for a container the container's (a `run -d` client exits 0 while it serves). */
  exit(group: Promise<ExitInfo>): Promise<ExitInfo>
  /** After the group is signalled: stop and remove the container, run `stop:`. Returns problems worth a warning. */
  undo(write: Sink, graceMs: number): Promise<string[]>
  identity?(): Promise<ContainerIdentity>
  /** A container's first process on this host: the engine's processes descend from it, not from our group. */
  enginePid?(): Promise<number | undefined>
  /** A container's image and the runtime that runs it: pulled before the spawn when the runtime lacks it. */
  image?: { runtime: Runtime; name: string }
  /** How the container runtime was chosen when the target names none. */
  runtimeNote?: string
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function containerExit(
  runtime: Runtime,
  name: string,
  group: Promise<ExitInfo>,
  stopped: () => boolean,
): Promise<ExitInfo> {
  const info = await group
  if (info.code !== 0 || stopped()) return info
  while (!stopped() && (await containerRunning(runtime, name))) await sleep(EXIT_POLL_MS)
  return { code: await containerExitCode(runtime, name), signal: null }
}

/** Throws when the runtime cannot be chosen; registers the cleanup before returning. */
export async function prepareOutside(
  target: TargetPlan,
  command: string | undefined,
  at: { port: number; logPath: string; env: Record<string, string>; guard: RunGuard },
): Promise<Outside> {
  const { port, guard } = at
  let stopped = false
  const stop: StopTask | undefined = target.stop
    ? {
        kind: 'stop',
        target: target.id,
        command: fillRuntime(target.stop, { port, run: guard.runId }),
        env: at.env,
        passEnv: target.settings.passEnv,
        logPath: at.logPath,
        ...(target.workdir && { cwd: target.workdir }),
      }
    : undefined
  const runStopTask = async (write: Sink) =>
    stop ? [await runStop(stop, write)].filter((p): p is string => p !== undefined) : []
  const c = target.container
  if (!c) {
    if (stop) guard.register(stop)
    return { command: command ?? '', exit: (group) => group, undo: runStopTask }
  }
  const detected = c.runtime ? undefined : await detectRuntime()
  const runtime = c.runtime ?? detected!.runtime
  const name = containerName(guard.runId, target.id)
  guard.register({ kind: 'containers', runtime, runId: guard.runId })
  if (stop) guard.register(stop)
  return {
    // `{port}` may be anywhere in the block (command, env, run-args): fill it in the composed line.
    command: fillPort(
      runCommand(runtime, c, { runId: guard.runId, name, port, passEnv: target.settings.passEnv }),
      port,
    ),
    exit: (group) => containerExit(runtime, name, group, () => stopped),
    async undo(write, graceMs) {
      stopped = true
      const problem = await removeContainer(runtime, name, graceMs)
      return [...(problem ? [problem] : []), ...(await runStopTask(write))]
    },
    identity: () => containerIdentity(runtime, name, c.image),
    enginePid: () => containerPid(runtime, name),
    image: { runtime, name: c.image },
    ...(detected && { runtimeNote: `container runtime ${runtime}: ${detected.why} (set container.runtime to choose)` }),
  }
}
