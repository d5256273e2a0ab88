/**
 * The GPU sampler of one round: an `nvidia-smi --query-gpu=… -lms 500` loop (one row per GPU every 500 ms until
 * killed, so at most 2 samples a second per GPU), spawned without a shell as the leader of a process group of its
 * own, so that one signal ends it and the run's guard can end it too when this process dies. What it prints is
 * bounded: lines past `MAX_LINE_BYTES` are dropped, and past `MAX_SAMPLES` rows every second row is dropped (per
 * GPU, evenly), so a round of any length holds a bounded number of samples.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { parseSample, SAMPLE_FIELDS, type GpuSample } from './gpu-telemetry.js'

export const SAMPLE_INTERVAL_MS = 500
export const MAX_LINE_BYTES = 1024
export const MAX_SAMPLES = 32_768
/** How long a killed sampler may take to be reaped; past it the guard keeps it registered. */
const EXIT_WAIT_MS = 2000

export interface SamplerOptions {
  /** The program and the arguments before the query (default `nvidia-smi`; a test's scripted one). */
  command?: readonly [string, ...string[]]
  intervalMs?: number
  /**
   * Told the sampler's pid in the tick it was spawned (its leader and its group id); the function it returns is
   * called once the sampler has exited, when the group id may be reused.
   */
  adopt?: (pid: number) => () => void
  /** The request records' clock. */
  now?: () => number
  /** The GPU indexes whose rows are kept (the target's); absent: every GPU's. */
  keep?: ReadonlySet<number>
}

export interface GpuSampler {
  /** Ends the sampler (SIGKILL of its group) and returns the rows it printed; never throws. */
  stop(): Promise<GpuSample[]>
}

export function samplerArgs(intervalMs = SAMPLE_INTERVAL_MS): string[] {
  return [`--query-gpu=${SAMPLE_FIELDS.join(',')}`, '--format=csv,noheader,nounits', `-lms`, String(intervalMs)]
}

/** Starts the loop; without `nvidia-smi` (or with any spawn failure) it samples nothing and says nothing. */
export function startGpuSampler(o: SamplerOptions = {}): GpuSampler {
  const [file, ...pre] = o.command ?? ['nvidia-smi']
  const now = o.now ?? (() => performance.now())
  const rows = createRows(o.keep)
  let child: ChildProcess
  try {
    child = spawn(file, [...pre, ...samplerArgs(o.intervalMs)], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] })
  } catch {
    return { stop: async () => [] }
  }
  const release = child.pid === undefined ? undefined : o.adopt?.(child.pid)
  const exited = new Promise<void>((resolve) => {
    child.once('error', () => resolve())
    child.once('exit', () => resolve())
  })
  void exited.then(() => release?.())
  child.stdout!.on('data', (chunk: Buffer) => rows.feed(chunk.toString('utf8'), now()))
  return {
    async stop() {
      // Signalled only while not yet reaped: until then its pid, and so its group id, cannot be anyone else's.
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL')
        } catch {
          // Gone already.
        }
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, EXIT_WAIT_MS).unref())])
      child.stdout!.destroy()
      return rows.samples()
    },
  }
}

/** The rows printed so far (of the kept GPUs), parsed as they arrive, bounded as the header says. */
function createRows(keep?: ReadonlySet<number>) {
  let partial = ''
  let skipping = false
  let stride = 1
  let kept: GpuSample[] = []
  const seen = new Map<number, number>()
  const add = (line: string, at: number) => {
    const sample = parseSample(line, at)
    if (!sample || (keep && !keep.has(sample.index))) return
    const n = seen.get(sample.index) ?? 0
    seen.set(sample.index, n + 1)
    if (n % stride !== 0) return
    kept.push(sample)
    if (kept.length < MAX_SAMPLES) return
    stride *= 2
    const ordinal = new Map<number, number>()
    kept = kept.filter((s) => {
      const i = ordinal.get(s.index) ?? 0
      ordinal.set(s.index, i + 1)
      return i % 2 === 0
    })
  }
  return {
    feed(text: string, at: number) {
      const parts = (partial + text).split('\n')
      partial = parts.pop() ?? ''
      for (const line of parts) {
        if (!skipping && line.length <= MAX_LINE_BYTES) add(line, at)
        skipping = false
      }
      if (partial.length > MAX_LINE_BYTES) {
        partial = ''
        skipping = true
      }
    },
    samples: () => kept,
  }
}
