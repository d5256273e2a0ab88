/**
 * The host side of one target: the preflight read before launch (a stray GPU process or an active
 * slowdown makes every cell of the target an `error` naming it), the watch around each steady round (its GPU
 * sampler, owned by the run's guard; a round the GPU slowed down during is measured again), and the environment
 * fingerprint each cell records.
 */
import type { MeasureOptions } from '../bench/measure.js'
import type { CellHost, Fingerprint, HostState } from '../core/host.js'
import type { Logger } from '../core/log.js'
import type { TargetPlan } from '../core/plan.js'
import type { TargetInfo } from '../core/results.js'
import {
  fingerprint,
  markAllowed,
  nvidiaSmi,
  oursBy,
  preflightProblem,
  readHost,
  startGpuSampler,
  watchRound,
  type Run,
  type SamplerOptions,
} from '../host/index.js'
import { groupTask, readMemInfo, startTimeOf, type MemInfo, type RunGuard } from '../server/index.js'

export interface HostDeps {
  /** `nvidia-smi` (default: the one on PATH). */
  smi?: Run
  /** Process groups this run launched: GPU processes in them are ours. */
  groups?: ReadonlySet<number>
  readMemory?: () => Promise<MemInfo>
  /** The run's guard: each round's GPU sampler is registered with it, so a dead run leaves none behind. */
  guard?: RunGuard
  /** The sampler's program and leading arguments (default `nvidia-smi`). */
  samplerCommand?: SamplerOptions['command']
}

export interface Preflight {
  state: HostState
  /** Why the target must not be measured now. */
  problem?: string
}

export async function preflightTarget(target: TargetPlan, deps: HostDeps, log: Logger): Promise<Preflight> {
  const state = await readHost({
    smi: deps.smi,
    memory: deps.readMemory ?? readMemInfo,
    ours: oursBy(deps.groups ?? new Set()),
  })
  log.info(`${target.id}: preflight: ${summary(state)}`)
  for (const p of markAllowed(state, target.settings.allowGpuProcesses)) {
    log.info(
      `${target.id}: preflight: GPU process pid ${p.pid} ${p.name} is allowed by allow-gpu-processes; it shares the GPU with the engine`,
    )
  }
  const problem = preflightProblem(state, { attached: Boolean(target.external) })
  return problem ? { state, problem } : { state }
}

function summary(state: HostState): string {
  const gpus = state.gpus?.map(
    (g, i) =>
      `GPU ${i} ${g.name ?? '?'} ${g.smClockMhz ?? '?'}/${g.maxSmClockMhz ?? '?'} MHz ${g.temperatureC ?? '?'} °C ${g.powerW ?? '?'} W`,
  )
  const processes =
    state.processes && `${state.processes.length} GPU process${state.processes.length === 1 ? '' : 'es'}`
  const governors = state.governors && `governor ${state.governors.join('/')}`
  return [...(gpus ?? [state.noGpu]), processes, governors].filter(Boolean).join('; ')
}

/** The round watch of a host whose GPUs answered, with a GPU sampler per round; none without GPU information. */
export function roundWatch(state: HostState, deps: HostDeps): MeasureOptions['watch'] {
  if (!state.gpus?.length) return undefined
  const smi = deps.smi ?? nvidiaSmi
  const { guard } = deps
  // The sampler leads its own group; its leader's start time is read in the tick it was spawned, before it can be reaped.
  const adopt = guard
    ? (pid: number) => {
        const task = groupTask({ pgid: pid, start: startTimeOf(pid) })
        guard.register(task)
        return () => guard.forget(task)
      }
    : undefined
  return () => watchRound(smi, () => startGpuSampler({ command: deps.samplerCommand, adopt }))
}

/** What each cell of a ready target records about its host. */
export async function targetHost(target: TargetPlan, state: HostState, info: TargetInfo): Promise<CellHost> {
  return { preflight: state, fingerprint: await engineFingerprint(target, state, info) }
}

/** The target's environment fingerprint; the launched program is resolved as the launch's shell would (its env and workdir). */
export function engineFingerprint(target: TargetPlan, state: HostState, info: TargetInfo): Promise<Fingerprint> {
  return fingerprint({
    host: state,
    engineVersion: info.version,
    container: info.container,
    model: target.model,
    launch: target.container ? undefined : { command: target.launch, env: { ...process.env, ...target.env } },
    cwd: target.workdir,
  })
}
