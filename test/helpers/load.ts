/**
 * What a wall-clock bound allows for a loaded runner, where the test cannot trace the delay itself (the figure is
 * taken in another process: the bundled action, the CLI). In-process figures are bounded by the traced event-loop
 * spells instead (lag-trace.ts).
 *
 * A scheduled server never writes early, so a figure taken over a schedule reads long, never short, by the delays of
 * the wake-ups it spans: a timer falling due, bytes arriving on a socket. Each such wake-up can be late by the time
 * the process waits for a core, plus what its event loop is busy with at that moment.
 *
 * Linux's fair scheduler gives each runnable task a slice of 0.75 ms × (1 + log2 cores) (kernel/sched/fair.c,
 * sysctl_sched_base_slice; sysctl_sched_min_granularity before 6.6), so a woken task waits about one slice per task
 * runnable ahead of it. Two test suites side by side on a 2-core runner keep some 20 tasks runnable: 30 ms.
 * The woken Node process may first finish a young-generation collection (a few ms, https://v8.dev/blog/trash-talk)
 * or a callback it is running. 50 ms per wake-up covers both with room.
 */
export const WAKE_MS = 50

/**
 * The share a rate or mean taken over a wall interval of `wallMs` may be off when each end's stamp may be late by up
 * to `lateMs` (the later end late, the earlier on time, or the other way round).
 */
export function shareOff(wallMs: number, lateMs: number): number {
  return lateMs / (wallMs - lateMs)
}
