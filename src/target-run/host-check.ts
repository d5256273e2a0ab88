/**
 * The host side of one target: the preflight read before launch (a stray GPU process or an active
 * slowdown on the target's GPUs makes every cell of the target an `error` naming it), the GPUs it counts (named
 * by its environment, else those its processes are on once ready: host/gpu-scope.ts), the watch around each
 * steady round over those GPUs (its GPU sampler, owned by the run's guard; a round the GPU slowed down during is
 * measured again), and the environment fingerprint each cell records.
 */
import type { MeasureOptions } from '../bench/measure.js'
import type { CellHost, Fingerprint, GpuScope, HostState } from '../core/host.js'
import type { Logger } from '../core/log.js'
import type { TargetPlan } from '../core/plan.js'
import type { TargetInfo } from '../core/results.js'
import {
  fingerprint,
  gpuLayers,
  hostGpuIds,
  markAllowed,
  markOutside,
  nvidiaSmi,
  oursBy,
  preflightProblem,
  queryComputeApps,
  readHost,
  resolveGpus,
  scopeGpus,
  scopeIndexes,
  scopeText,
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
  /** The runner's environment, which a launched engine inherits (its CUDA_VISIBLE_DEVICES); default this process's. */
  env?: Readonly<Record<string, string | undefined>>
  /**
   * Cores another process may use during a round before the box counts as disturbed (default: host/disturbance.ts's
   * `BUSY_CORES`); a test on a box other sessions load lowers it, since each session gets its share of the CPUs.
   */
  busyCores?: number
}

export interface Preflight {
  state: HostState
  /** The GPUs the checks counted: those the target names, or every GPU; absent without GPU information. */
  scope?: GpuScope
  /** True when the target's environment named its GPUs; otherwise its processes decide once it is ready. */
  named?: boolean
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
  const resolved = state.gpus && resolveGpus(gpuLayers(target, deps.env ?? process.env), hostGpuIds(state))
  if (resolved && 'problem' in resolved) return { state, problem: resolved.problem }
  const scope = resolved?.scope
  if (resolved?.chosen) log.info(`${target.id}: GPUs counted: ${scopeText(resolved.scope)}`)
  for (const p of markAllowed(state, target.settings.allowGpuProcesses)) {
    log.info(
      `${target.id}: preflight: GPU process pid ${p.pid} ${p.name} is allowed by allow-gpu-processes; it shares the GPU with the engine`,
    )
  }
  const outside = scope ? markOutside(state, scope) : []
  for (const p of outside) {
    log.info(
      `${target.id}: preflight: GPU process pid ${p.pid} ${p.name} on GPU ${p.gpu} is not on this target's GPUs (${scope && scopeGpus(scope)}); not counted against it`,
    )
  }
  const problem = preflightProblem(state, { attached: Boolean(target.external), scope })
  return { state, ...(scope && { scope, named: resolved.chosen }), ...(problem && { problem }) }
}

/** Compute processes looked at for the target's own (bounded: `nvidia-smi`'s output is, this is too). */
const MAX_APPS = 256

/**
 * The target's GPUs once it is ready: those its environment named; else the GPUs its processes (its process group's)
 * are on, as `nvidia-smi --query-compute-apps=pid,gpu_uuid` lists them; else every GPU. Logged.
 */
export async function readyScope(
  target: TargetPlan,
  preflight: Preflight,
  pgid: number | undefined,
  deps: HostDeps,
  log: Logger,
): Promise<GpuScope | undefined> {
  const { scope, named, state } = preflight
  if (!scope || named) return scope
  const ids = hostGpuIds(state)
  const apps = pgid === undefined ? [] : ((await queryComputeApps(deps.smi ?? nvidiaSmi)) ?? []).slice(0, MAX_APPS)
  const mine = oursBy(new Set(pgid === undefined ? [] : [pgid]))
  const found: string[] = []
  const gpus = new Set<number>()
  for (const app of apps) {
    const gpu = ids.find((g) => g.uuid !== undefined && g.uuid === app.gpuUuid)
    if (!gpu || !(await mine(app.pid))) continue
    gpus.add(gpu.index)
    found.push(`pid ${app.pid} on GPU ${gpu.index}`)
  }
  const counted: GpuScope = found.length
    ? {
        gpus: ids.filter((g) => gpus.has(g.index)),
        of: ids.length,
        from: `the target's processes: ${found.slice(0, 4).join(', ')}${found.length > 4 ? ', …' : ''}`,
      }
    : { ...scope, from: `${scope.from}, and none of its processes is on one` }
  log.info(`${target.id}: GPUs counted: ${scopeText(counted)}`)
  return counted
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

/**
 * The round watch of a host whose GPUs answered, with a GPU sampler per round over the target's GPUs (`scope`; every
 * GPU without one); none without GPU information or when the target uses no GPU.
 */
export function roundWatch(state: HostState, deps: HostDeps, scope?: GpuScope): MeasureOptions['watch'] {
  if (!state.gpus?.length || scope?.gpus.length === 0) return undefined
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
  const keep = scope && scopeIndexes(scope)
  return () => watchRound(smi, () => startGpuSampler({ command: deps.samplerCommand, adopt, keep }), scope)
}

/** What each cell of a ready target records about its host, with the GPUs counted for it (`host.counted`). */
export async function targetHost(
  target: TargetPlan,
  state: HostState,
  info: TargetInfo,
  counted?: GpuScope,
): Promise<CellHost> {
  return { preflight: state, ...(counted && { counted }), fingerprint: await engineFingerprint(target, state, info) }
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
