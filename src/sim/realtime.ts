/**
 * Drives the engine model on the wall clock. Virtual time = wall time since start × time scale.
 * Every step's end is an absolute deadline, so a late timer delays one delivery but never the
 * schedule after it; a request only joins a step that starts after it arrived (in virtual
 * time), exactly as in `simulate`.
 *
 * Wall-clock artefacts must not be multiplied by the time scale (at scale 100, 5 ms of event-loop
 * lag would pass for half a second of engine time). So a request arrives when its headers did,
 * not after its body was read and counted; and an idle engine waits GATHER_MS of wall time
 * before planning, then starts the step at the first arrival with every request that came in
 * meanwhile — a burst sent at once is scheduled at once, as in the model.
 */
import { EngineModel, type Emission, type StepResult } from './engine.js'
import type { RequestAcceptance } from './acceptance.js'
import type { Profile } from './profile.js'
import { createRng, sideStream } from './rng.js'
import type { EngineSpeed } from './speed.js'
import type { Span } from './power.js'

interface Pending {
  id: number
  at: number
  promptTokens: number
  maxTokens: number
  side: boolean
  cachedTokens: number
  acceptance?: RequestAcceptance
}

export type EmissionListener = (emission: Emission) => void

export const GATHER_MS = 20

/** What the engine is doing at one moment, as its metrics endpoint reports it. */
export interface EngineNow {
  running: number
  waiting: number
  /** KV tokens the running streams hold (EngineModel.kvUsed). */
  kvTokens: number
  /** Virtual now, in modelled ms. */
  at: number
  /** The step planned and not yet delivered, in modelled ms; none while the engine is idle. */
  step?: Span
}

export class RealtimeEngine {
  private readonly model: EngineModel
  private readonly origin = performance.now()
  private readonly pending: Pending[] = []
  private readonly listeners = new Map<number, EmissionListener>()
  private timeout?: NodeJS.Timeout
  private immediate?: NodeJS.Immediate
  private nextId = 0
  private closed = false
  private inStep?: Span

  constructor(
    profile: Profile,
    seed: number,
    private readonly timeScale: number,
    private readonly onStep: (step: StepResult) => void = () => {},
    speed: EngineSpeed = {},
    /** Accepted drafts' scale for requests without their own acceptance (EngineModel). */
    draftScale = 1,
  ) {
    this.model = new EngineModel(profile, createRng(seed), sideStream(seed), speed, draftScale)
  }

  /** Virtual now, in modelled milliseconds. */
  now(): number {
    return (performance.now() - this.origin) * this.timeScale
  }

  get inFlight(): { running: number; waiting: number } {
    const m = this.model.inFlight
    return { running: m.running, waiting: m.waiting + this.pending.length }
  }

  /**
   * The engine now, its step as the virtual schedule will have it. A step whose end has passed on the virtual clock
   * may not be delivered yet (timers run late); when the engine has work left, its next step starts at that end, so
   * the step counts as running on. While an idle engine gathers requests its step is not planned yet, but it will
   * start at the first arrival, which has passed. So the power gauge reads busy whenever the schedule runs a step,
   * and the energy counter does not jump when the step is planned.
   */
  state(): EngineNow {
    const gathering = this.pending.length > 0 ? { start: this.pending[0].at, end: Infinity } : undefined
    const running = this.inStep && { start: this.inStep.start, end: this.model.busy ? Infinity : this.inStep.end }
    const step = running ?? gathering
    return { ...this.inFlight, kvTokens: this.model.kvUsed(), at: this.now(), ...(step && { step }) }
  }

  /**
   * Queues a request; `listener` gets its emissions until the one marked `done`. Returns its id.
   * `arrivedAt` is the wall time (`performance.now()`) the request reached the server; `side` marks an untimed
   * request (see `EngineRequest.side`); `cachedTokens` of the prompt a prefix cache serves skip prefill;
   * `acceptance`, the request's own draft acceptance (`EngineRequest.acceptance`).
   */
  submit(
    promptTokens: number,
    maxTokens: number,
    listener: EmissionListener,
    arrivedAt = performance.now(),
    side = false,
    cachedTokens = 0,
    acceptance?: RequestAcceptance,
  ): number {
    const id = this.nextId++
    const at = Math.min(this.now(), (arrivedAt - this.origin) * this.timeScale)
    this.pending.push({ id, at, promptTokens, maxTokens, side, cachedTokens, ...(acceptance && { acceptance }) })
    this.pending.sort((a, b) => a.at - b.at || a.id - b.id)
    this.listeners.set(id, listener)
    if (!this.scheduled() && !this.closed && !this.model.busy) {
      this.timeout = setTimeout(() => this.plan(this.pending[0]?.at ?? this.now(), this.now()), GATHER_MS)
    }
    return id
  }

  cancel(id: number): void {
    this.listeners.delete(id)
    const i = this.pending.findIndex((p) => p.id === id)
    if (i >= 0) this.pending.splice(i, 1)
    this.model.cancel(id)
  }

  close(): void {
    this.closed = true
    clearTimeout(this.timeout)
    if (this.immediate) clearImmediate(this.immediate)
    this.timeout = this.immediate = undefined
    this.listeners.clear()
  }

  private scheduled(): boolean {
    return this.timeout !== undefined || this.immediate !== undefined
  }

  private admit(until: number): void {
    while (this.pending.length > 0 && this.pending[0].at <= until) {
      const p = this.pending.shift() as Pending
      const { id, promptTokens, maxTokens, side, cachedTokens, acceptance } = p
      this.model.submit({
        id,
        promptTokens,
        maxTokens,
        side,
        ...(cachedTokens > 0 && { cachedTokens }),
        ...(acceptance && { acceptance }),
      })
    }
  }

  /** Plans the step starting at `start`, admitting requests that arrived by `admitUntil` (default: by `start`). */
  private plan(start: number, admitUntil = start): void {
    this.timeout = this.immediate = undefined
    this.admit(Math.max(start, admitUntil))
    if (!this.model.busy) {
      if (this.pending.length === 0) return
      start = this.pending[0].at
      this.admit(start)
    }
    const step = this.model.step(start) as StepResult
    this.inStep = { start: step.start, end: step.end }
    this.deliverAt(step, this.origin + step.end / this.timeScale)
  }

  /**
   * Delivers a step no earlier than it is due. Node's timers run on a whole-millisecond clock and may fire up to
   * a millisecond early, so an early wake-up waits again for the rest; timeouts below 1 ms are clamped up to
   * 1 ms, so a step due that soon runs on the next turn instead.
   */
  private deliverAt(step: StepResult, dueAt: number): void {
    const wait = dueAt - performance.now()
    if (wait < 0.5) this.immediate = setImmediate(() => this.deliver(step))
    else this.timeout = setTimeout(() => this.deliverAt(step, dueAt), wait)
  }

  private deliver(step: StepResult): void {
    if (this.closed) return
    this.inStep = undefined
    this.onStep(step)
    for (const emission of step.emissions) {
      const listener = this.listeners.get(emission.id)
      if (emission.done) this.listeners.delete(emission.id)
      listener?.(emission)
    }
    if (!this.closed) this.plan(step.end)
  }
}
