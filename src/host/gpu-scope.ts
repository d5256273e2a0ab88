/**
 * Which of the host's GPUs a target uses, so that its energy, its GPU telemetry and the preflight's GPU checks count
 * those and no other: a neighbour's GPU drawing more power, or a process on a GPU the target never touches, says
 * nothing about the target.
 *
 * The GPUs are chosen as the engine will see them, each layer narrowing the GPUs the one before left (the host's, in
 * `nvidia-smi`'s index order):
 * - A `container:` target with `gpus: all` gets every GPU (`--gpus all`: docker then sets NVIDIA_VISIBLE_DEVICES=all
 *   after the container's own environment, moby daemon/nvidia_linux.go). With `gpus: none`, its `run-args` name them:
 *   `--gpus all | N | device=…` (N is GPUs 0 to N−1, moby's countToDevices) or podman's `--device nvidia.com/gpu=…`
 *   (CDI names), else `container.env`'s NVIDIA_VISIBLE_DEVICES (the NVIDIA runtime's variable). Then
 *   `container.env`'s CUDA_VISIBLE_DEVICES within those.
 * - Any other target: NVIDIA_VISIBLE_DEVICES of the target's `env` (a launch that starts a container itself), then
 *   CUDA_VISIBLE_DEVICES of the target's `env`, else of the runner's environment, which the engine inherits. The
 *   runner's own NVIDIA_VISIBLE_DEVICES is not read: the container runtime the runner runs in applied it already, and
 *   `nvidia-smi` there lists only those GPUs.
 *
 * Values, as the NVIDIA Container Toolkit ("GPU Enumeration", docs.nvidia.com/datacenter/cloud-native) and CUDA
 * (CUDA C++ Programming Guide, "CUDA Environment Variables") read them: unset or `all` is every GPU; `none`, `void`,
 * empty or `-1` none; otherwise a comma list of indexes or UUIDs, where a UUID may be given by its first characters,
 * `GPU-` included (NVIDIA MPS documentation, "CUDA_VISIBLE_DEVICES"). An index counts within the GPUs the layer before
 * left, as CUDA renumbers them. An entry that names no GPU there is an error naming the variable (CUDA would silently
 * drop it and every entry after it). A MIG instance (`MIG-…`, `0:1`) is not resolved to its GPU: the layer is left
 * out. CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, `nvidia-smi` by PCI bus: on a box of
 * mixed GPUs, indexes match only with that setting; UUIDs always do.
 *
 * With nothing chosen, the target's GPUs are those its processes are on once it is ready (host-check.ts), and every
 * GPU before launch or when none of its processes is on one.
 */
import type { GpuId, GpuScope } from '../core/host.js'
import type { ContainerPlan, TargetPlan } from '../core/plan.js'

/** One narrowing: what the report calls it (`the target's env CUDA_VISIBLE_DEVICES=1`) and its value. */
export interface GpuLayer {
  label: string
  value: string
}

const MAX_VALUE = 120
const shown = (value: string) => (value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}…` : value)
const layer = (name: string, value: string): GpuLayer => ({ label: `${name}=${shown(value)}`, value })

const CUDA = 'CUDA_VISIBLE_DEVICES'
const NVIDIA = 'NVIDIA_VISIBLE_DEVICES'

/** The layers that choose a target's GPUs, in the order they apply; none when nothing chooses them. */
export function gpuLayers(target: TargetPlan, runner: Readonly<Record<string, string | undefined>>): GpuLayer[] {
  if (target.container) return containerLayers(target.container)
  const layers: GpuLayer[] = []
  if (target.env[NVIDIA] !== undefined) layers.push(layer(`the target's env ${NVIDIA}`, target.env[NVIDIA]))
  if (target.env[CUDA] !== undefined) layers.push(layer(`the target's env ${CUDA}`, target.env[CUDA]))
  else if (runner[CUDA] !== undefined) layers.push(layer(`the runner's ${CUDA}`, runner[CUDA]))
  return layers
}

function containerLayers(c: ContainerPlan): GpuLayer[] {
  const layers: GpuLayer[] = []
  if (c.gpus === 'none') {
    const flag = runArgsGpus(c.runArgs)
    if (flag) layers.push(flag)
    else if (c.env[NVIDIA] !== undefined) layers.push(layer(`container.env ${NVIDIA}`, c.env[NVIDIA]))
  }
  if (c.env[CUDA] !== undefined) layers.push(layer(`container.env ${CUDA}`, c.env[CUDA]))
  return layers
}

/** The GPUs `run-args` give a container: docker's last `--gpus`, or every podman `--device nvidia.com/gpu=…`. */
export function runArgsGpus(runArgs: string | string[] | undefined): GpuLayer | undefined {
  const words = (typeof runArgs === 'string' ? runArgs.split(/\s+/) : (runArgs ?? [])).map((w) =>
    w.replace(/^['"]+|['"]+$/g, ''),
  )
  let gpus: string | undefined
  const cdi: string[] = []
  for (const [i, word] of words.entries()) {
    const value = word.startsWith('--gpus=') ? word.slice(7) : word === '--gpus' ? words[i + 1] : undefined
    if (value !== undefined) gpus = value.replace(/^['"]+|['"]+$/g, '')
    const device = word.startsWith('--device=') ? word.slice(9) : word === '--device' ? words[i + 1] : undefined
    const name = /^nvidia\.com\/gpu=(.+)$/.exec(device ?? '')?.[1]
    if (name) cdi.push(name)
  }
  if (gpus !== undefined) {
    const count = /^(?:count=)?(\d+)$/.exec(gpus)?.[1]
    if (count) return { label: `container run-args --gpus ${count}`, value: countToDevices(Number(count)) }
    const devices = /(?:^|,)device=([^"']+)/.exec(gpus)?.[1] ?? (gpus === 'all' ? 'all' : undefined)
    return devices === undefined ? undefined : layer('container run-args --gpus device', devices)
  }
  return cdi.length ? layer('container run-args --device nvidia.com/gpu', cdi.join(',')) : undefined
}

const countToDevices = (n: number) => Array.from({ length: n }, (_, i) => String(i)).join(',')

const NONE = new Set(['', 'none', 'void', '-1'])

/** The GPUs the layers leave of the host's, or why a layer names a GPU the host lacks; `chosen` when one narrowed. */
export function resolveGpus(
  layers: readonly GpuLayer[],
  host: readonly GpuId[],
): { scope: GpuScope; chosen: boolean } | { problem: string } {
  let current = [...host].sort((a, b) => a.index - b.index)
  const chosen: string[] = []
  for (const l of layers) {
    const value = l.value.trim()
    if (value.toLowerCase() === 'all') continue
    const entries = NONE.has(value.toLowerCase()) ? [] : value.split(',').map((e) => e.trim())
    // A MIG instance is not one of the GPUs nvidia-smi's GPU queries list.
    if (entries.some((e) => /^MIG-/i.test(e) || e.includes(':'))) continue
    const next: GpuId[] = []
    for (const entry of entries) {
      const gpu = /^\d+$/.test(entry)
        ? current[Number(entry)]
        : current.find((g) => entry.length > 0 && g.uuid?.toLowerCase().startsWith(entry.toLowerCase()))
      if (!gpu) return { problem: `${l.label}: ${missing(entry, current, host)}` }
      if (!next.includes(gpu)) next.push(gpu)
    }
    current = next
    chosen.push(l.label)
  }
  const from = chosen.length ? chosen.join(', then ') : "nothing names the target's GPUs"
  return { scope: { gpus: current, of: host.length, from }, chosen: chosen.length > 0 }
}

/** Why an entry names no GPU: none by that index or UUID, or no UUID to match it against. */
function missing(entry: string, current: readonly GpuId[], host: readonly GpuId[]): string {
  if (!/^\d+$/.test(entry) && current.length && current.every((g) => g.uuid === undefined))
    return `no GPU UUID to match ${shown(entry)} against: nvidia-smi gave none (--query-gpu=index,uuid)`
  const among = current.length === host.length ? 'of this host' : 'it can see'
  return `no GPU ${shown(entry)} among the ${current.length} GPUs ${among}`
}

/** `GPU 1 of 8`, `GPUs 0, 3 of 8`, `no GPU of 8`, `every GPU (2)`. */
export function scopeGpus(scope: GpuScope): string {
  const indexes = scope.gpus.map((g) => g.index)
  if (indexes.length === 0) return `no GPU of ${scope.of}`
  if (indexes.length === scope.of && scope.of > 1) return `every GPU (${scope.of})`
  return `GPU${indexes.length === 1 ? '' : 's'} ${indexes.join(', ')} of ${scope.of}`
}

/** The GPUs and how they were chosen: `GPU 1 of 8 (the target's env CUDA_VISIBLE_DEVICES=1)`. */
export const scopeText = (scope: GpuScope): string => `${scopeGpus(scope)} (${scope.from})`

/** The scope's GPU indexes. */
export const scopeIndexes = (scope: GpuScope): ReadonlySet<number> => new Set(scope.gpus.map((g) => g.index))
