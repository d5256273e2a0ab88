/**
 * The simulated GPU's power and energy, in simulated time: the profile's `power-w.busy` while a step runs and
 * `power-w.idle` otherwise, integrated into joules since the server started. Both the energy and the tokens it is
 * divided by are simulated quantities, so energy per token does not depend on the time scale: a step of d
 * simulated ms costs busy × d / 1000 J whether it took d ms of wall time or d / 100.
 *
 * NVML exposes the same pair, a total-energy counter (mJ since the driver loaded) and the current draw;
 * vLLM's `vllm/benchmarks/lib/energy.py` diffs the counter around a run. Steps follow one another; a step planned
 * to start before the previous one ended (a request whose headers came in during that step) counts the time
 * they share once.
 */

/** The draw of the simulated GPU (watts): with nothing to do, and while the engine runs a step. */
export interface PowerDraw {
  idleW: number
  busyW: number
}

/** A step's span in simulated ms. */
export interface Span {
  start: number
  end: number
}

export class EnergyMeter {
  /** Simulated ms of delivered steps, overlaps counted once. */
  private doneMs = 0
  private lastEnd = 0

  constructor(readonly draw: PowerDraw) {}

  /** A step was delivered (steps are delivered in the order they were planned). */
  record(step: Span): void {
    const span = this.clip(step)
    this.doneMs += span.end - span.start
    this.lastEnd = span.end
  }

  /** Simulated ms the engine was busy by `now`: delivered steps and the part of the step in flight that ran. */
  busyMs(now: number, inFlight?: Span): number {
    if (!inFlight) return this.doneMs
    const span = this.clip(inFlight)
    return this.doneMs + Math.min(Math.max(now - span.start, 0), span.end - span.start)
  }

  /** Joules drawn from simulated time 0 to `now` (ms). */
  joules(now: number, inFlight?: Span): number {
    const busy = this.busyMs(now, inFlight)
    const { idleW, busyW } = this.draw
    return (idleW * Math.max(now - busy, 0) + busyW * busy) / 1000
  }

  /** The draw at `now`: busy while the step in flight runs, idle otherwise. */
  watts(now: number, inFlight?: Span): number {
    const span = inFlight && this.clip(inFlight)
    return span && now >= span.start && now < span.end ? this.draw.busyW : this.draw.idleW
  }

  /** The part of a step after the previous delivered one ended. */
  private clip(step: Span): Span {
    const start = Math.max(step.start, this.lastEnd)
    return { start, end: Math.max(step.end, start) }
  }
}
