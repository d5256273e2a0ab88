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
  return {
    stop: () => clearInterval(timer),
    lateBy: (at, nearMs = 5) => longest((_, to) => Math.abs(to - at) <= nearMs),
    heldAfter: (at, nearMs = 5) => longest((from, to) => at >= from - nearMs && at <= to),
  }
}
