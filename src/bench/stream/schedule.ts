/**
 * Load generation. Closed loop: at most `concurrency` requests in flight, the next one sent as
 * soon as a slot frees. Open loop: Poisson arrivals at `rate` requests/s from a seeded PRNG,
 * no cap on requests in flight. Either way each request learns when it was due (`dueAt`) so
 * the time it waited in our scheduler is recorded, never hidden: a load generator that measures
 * only from the actual send hides its own backlog ("coordinated omission", see wrk2's README).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { mulberry32 } from '../../core/random.js'

/** Sends request `index` of the round; `dueAt` is when it became due (ms, performance clock). */
export type Send<T> = (index: number, dueAt: number) => Promise<T>

/** Same seed, same arrivals (shared with the simulator). */
export const seededRandom = mulberry32

/**
 * Arrival offsets (ms) of `n` requests: the first at 0, then exponential gaps of mean 1/rate.
 * Like `vllm bench serve`, the offsets are rescaled so the span matches the nominal rate exactly
 * ((n − 1)/rate), which keeps request throughput comparable across seeds.
 */
export function poissonArrivals(n: number, rate: number, seed: number): number[] {
  const random = seededRandom(seed)
  const offsets = [0]
  for (let i = 1; i < n; i++) offsets.push(offsets[i - 1] - Math.log(1 - random()) / rate)
  const span = offsets[n - 1]
  if (n < 2 || !(span > 0)) return offsets.slice(0, n).map((o) => o * 1000)
  const scale = (n - 1) / rate / span
  return offsets.map((o) => o * scale * 1000)
}

export async function closedLoop<T>(
  total: number,
  concurrency: number,
  send: Send<T>,
  signal?: AbortSignal,
): Promise<T[]> {
  const results = new Array<T>(total)
  const dueAt = performance.now()
  let next = 0
  const worker = async () => {
    while (next < total && !signal?.aborted) {
      const index = next++
      // All requests of a round are due at its start; waiting for a slot is queue time, as vLLM counts it.
      results[index] = await send(index, dueAt)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, worker))
  return results.filter((r) => r !== undefined)
}

export async function openLoop<T>(offsetsMs: readonly number[], send: Send<T>, signal?: AbortSignal): Promise<T[]> {
  const start = performance.now()
  const pending: Promise<T>[] = []
  for (const [index, offset] of offsetsMs.entries()) {
    const dueAt = start + offset
    // Timers run on a whole-millisecond clock and may fire up to 1 ms early: never send early.
    for (let wait = dueAt - performance.now(); wait > 0 && !signal?.aborted; wait = dueAt - performance.now()) {
      await sleep(Math.ceil(wait), undefined, { signal }).catch(() => undefined)
    }
    if (signal?.aborted) break
    pending.push(send(index, dueAt))
  }
  return Promise.all(pending)
}
