/**
 * How long this thread's event loop was held up, and when. A 1 ms interval timer records each
 * tick's lateness beyond the interval: a tick fired at f, l ms late, saw the loop blocked (or the
 * process descheduled) over [f − l − 1, f]. Unlike the run's maximum, the two questions below look
 * only at the spells that touch a timestamp, and leave out busy spells elsewhere (building a
 * 100K-token prompt, tokenizing it), which delay nothing a figure is taken over. Both answers are
 * exact to the timer's 1 ms resolution plus `nearMs`.
 */
export interface LagTrace {
  stop(): void
  /** How far the loop may have moved each interval the figures of these requests are taken over (ms). */
  ofRequests(requests: readonly TimedRequest[]): IntervalLags
  /**
   * How late a timestamp taken when something arrived (a token) can be: the longest spell that
   * ended within `nearMs` of it. What was due during a spell is handled when it ends.
   */
  lateBy(at: number, nearMs?: number): number
  /**
   * How long what a stamp starts (a request stamped as sent, then written out) can have been held
   * up: the longest spell that held the stamp or began within `nearMs` after it.
   */
  heldAfter(at: number, nearMs?: number): number
  /**
   * How long the loop was held, in all, over `from` to `to`: what a chain of timers run over that span (each armed
   * when the one before fired) can have fallen behind, since each spell delays the link it holds by its length at most.
   */
  heldWithin(from: number, to: number, nearMs?: number): number
}

/** What a request record says of its timing (`RequestRecord` in src/bench/stream/record.ts). */
export interface TimedRequest {
  sentAt: number
  ttftMs: number
  e2eMs: number
}

/**
 * A request held up for S after it was stamped as sent reaches the server that much later, and its
 * whole schedule with it; a token's timestamp is late by L at most. So a TTFT reads long by at most
 * S + L of its first token, a decode window (first to last token) is off by at most the larger L
 * of its ends, and a round (first send to last token) reads long by at most the largest S plus the
 * largest L. Each is the worst over the requests: a mean is off by no more than its worst member.
 */
export interface IntervalLags {
  ttftMs: number
  decodeMs: number
  roundMs: number
}

/**
 * The share a figure taken over an interval of wall length `wallMs` can be off when the interval
 * was moved by up to `movedMs`, with `slackMs` for what no trace sees (a request's trip over
 * loopback, a timer's whole-millisecond rounding).
 */
export function relativeBound(wallMs: number, movedMs: number, slackMs = 2): number {
  const e = movedMs + slackMs
  return e / (wallMs - e)
}

export function traceLag(): LagTrace {
  const firedAt: number[] = []
  const late: number[] = []
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    firedAt.push(now)
    late.push(Math.max(0, now - last - 1))
    last = now
  }, 1)
  const longest = (touches: (from: number, to: number) => boolean) => {
    let worst = 0
    for (let i = 0; i < firedAt.length; i++) {
      if (touches(firedAt[i] - late[i] - 1, firedAt[i])) worst = Math.max(worst, late[i])
    }
    return worst + 1
  }
  const lateBy = (at: number, nearMs = 5) => longest((_, to) => Math.abs(to - at) <= nearMs)
  const heldAfter = (at: number, nearMs = 5) => longest((from, to) => at >= from - nearMs && at <= to)
  const heldWithin = (from: number, to: number, nearMs = 5) => {
    let held = 0
    for (let i = 0; i < firedAt.length; i++) if (firedAt[i] >= from && firedAt[i] <= to + nearMs) held += late[i]
    return held + 1
  }
  return {
    stop: () => clearInterval(timer),
    lateBy,
    heldAfter,
    heldWithin,
    ofRequests(requests) {
      const each = requests.map((q) => ({
        held: heldAfter(q.sentAt),
        first: lateBy(q.sentAt + q.ttftMs),
        last: lateBy(q.sentAt + q.e2eMs),
      }))
      const worst = (f: (e: (typeof each)[number]) => number) => Math.max(0, ...each.map(f))
      return {
        ttftMs: worst((e) => e.held + e.first),
        decodeMs: worst((e) => Math.max(e.first, e.last)),
        roundMs: worst((e) => e.held) + worst((e) => e.last),
      }
    },
  }
}

/**
 * Times `run` with this thread's loop traced, for a wall-clock bound on code that waits on timers and loopback
 * servers in this thread: it ends once what it waits for is due, late by no more than the loop was held over the
 * run (`heldWithin`) and the whole-millisecond rounding of each timer it chains (`timers`, 1 ms each), plus 2 ms
 * for the trip over loopback. Returns what `run` returned, its wall time and that bound for a wait of `dueMs`.
 */
export async function timedInLoop<T>(
  run: () => Promise<T>,
): Promise<{ value: T; elapsed: number; bound: (dueMs: number, timers?: number) => number }> {
  const lag = traceLag()
  const started = performance.now()
  let ended = started
  try {
    const value = await run()
    ended = performance.now()
    return {
      value,
      elapsed: ended - started,
      bound: (dueMs, timers = 1) => dueMs + lag.heldWithin(started, ended) + timers + 2,
    }
  } finally {
    lag.stop()
  }
}
