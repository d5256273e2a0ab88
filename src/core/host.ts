/**
 * What the results file records about the host a target ran on: its state just before launch (GPU
 * clocks, power, temperature, slowdown reasons and their counters, GPU compute processes, available
 * memory, CPU governor), the environment fingerprint compared with the baseline's, and the rounds
 * re-measured because the GPU slowed down during them. Every figure is optional: a host without
 * `nvidia-smi`, a VM without cpufreq, a GB10 reporting `[N/A]` simply leave it out.
 */

/**
 * Clock slowdown reasons that make a measurement unrepresentative, by their `nvidia-smi` field names
 * (`clocks_event_reasons.<name>`; `clocks_throttle_reasons.<name>` on drivers before 535). Idle,
 * application-clock and sync-boost reasons are left out: they do not mean the box is throttled.
 */
export const SLOWDOWN_REASONS = [
  'hw_slowdown',
  'sw_thermal_slowdown',
  'hw_thermal_slowdown',
  'hw_power_brake_slowdown',
  'sw_power_cap',
] as const
export type SlowdownReason = (typeof SLOWDOWN_REASONS)[number]

export interface GpuState {
  name?: string
  /** `GPU-…`, from `nvidia-smi --query-gpu=uuid`. */
  uuid?: string
  driver?: string
  smClockMhz?: number
  maxSmClockMhz?: number
  powerW?: number
  temperatureC?: number
  /** The `clocks_event_reasons.active` bit mask as printed (`0x0000000000000000`). */
  activeMask?: string
  /** Slowdown reasons active when read. */
  active: SlowdownReason[]
  /** Cumulative time spent in each slowdown reason, microseconds, where the driver has the counters. */
  counters?: Partial<Record<SlowdownReason, number>>
}

export interface GpuProcess {
  pid: number
  name: string
  usedMemoryMiB?: number
  /** The GPU it runs on: `nvidia-smi`'s index and UUID (`--query-compute-apps=gpu_uuid`). */
  gpu?: number
  gpuUuid?: string
  /** On a GPU the target does not use: listed, never counted against it. */
  outside?: boolean
  /** Started by this run (its process group is one this run launched). */
  ours: boolean
  /** Not ours, but matched by the target's `allow-gpu-processes`. */
  allowed?: boolean
}

/** One GPU as `nvidia-smi` names it: its index (`--query-gpu=index`) and UUID (`uuid`, `GPU-…`). */
export interface GpuId {
  index: number
  uuid?: string
}

/**
 * The GPUs a target's checks, telemetry and energy count (host/gpu-scope.ts): `gpus` of the `of` GPUs the host
 * has, and how they were chosen (`the target's env CUDA_VISIBLE_DEVICES=1`, `every GPU: …`).
 */
export interface GpuScope {
  gpus: GpuId[]
  of: number
  from: string
}

export interface HostState {
  /** One entry per GPU; absent when there is no GPU information, with the reason in `noGpu`. */
  gpus?: GpuState[]
  /** Why there is no GPU information (`nvidia-smi not found`). */
  noGpu?: string
  /** CUDA version from the `nvidia-smi` header. */
  cuda?: string
  processes?: GpuProcess[]
  memory?: { availableBytes: number; totalBytes: number }
  /** The distinct CPU frequency governors (`performance`, `powersave`); absent without cpufreq (VMs). */
  governors?: string[]
}

export interface Fingerprint {
  driver?: string
  cuda?: string
  /** Engine version the engine reported. */
  engine?: string
  image?: string
  digest?: string
  /** A model given as a local path: its size and modification time. */
  model?: { bytes: number; mtime: string }
  /** The program the launch command runs and a hash of its contents (`llama-server sha256:0123456789abcdef`). */
  program?: string
}

export interface RemeasuredRound {
  /** Round index (from 0). */
  round: number
  /** What moved, e.g. `sw_thermal_slowdown +1.2 s`. */
  reason: string
}

export interface CellHost {
  preflight: HostState
  /** The GPUs counted for the target (results field `host.counted`). */
  counted?: GpuScope
  fingerprint: Fingerprint
  /** Rounds measured again because the GPU slowed down during them. */
  remeasured?: RemeasuredRound[]
  /** How this fingerprint differs from the baseline cell's (`driver 580.95 → 590.10`). */
  changes?: string[]
  /** The baseline cell's fingerprint, where it differs from this one: what a same-box A/B's arms are checked against. */
  baseline?: Fingerprint
}
