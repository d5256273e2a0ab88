/**
 * The simulated engine: continuous batching in virtual time, no timers.
 *
 * Each step the engine (1) runs one decode/verify pass for every stream that has finished
 * its prefill, and (2) spends the rest of the step on prefill: up to `chunkTokens` prompt
 * tokens, first-come first-served, a long prompt spanning several steps and short ones
 * sharing a step — vLLM's chunked-prefill scheduler. Step duration = decode step time for
 * the batch + prefill tokens / prefill rate, times seeded jitter. Everything a step produces
 * (first tokens of prompts it completed, 1 + accepted drafts per decoding stream) is
 * delivered at the step's end. Requests arriving during a step wait for the next one.
 *
 * The step duration is then divided by the launch's speed at the step's start (`speed.ts`:
 * launch offset, box factor, slow periods); 1 unless the launch sets them.
 *
 * Why chunked and not one whole prompt per step: with eight 1024-token prompts arriving
 * together, the published leaderboard rows show TTFT p99 ≈ 1.4 × the mean, i.e. prompts
 * finishing in small groups interleaved with decode steps, not all at once (ratio 1.0) nor
 * strictly one by one (≈ 1.75).
 */
import type { RequestAcceptance } from './acceptance.js'
import type { Profile } from './profile.js'
import { createBag, createRng, jitterFactor, sideStream, type Rng } from './rng.js'
import { speedAt, type EngineSpeed } from './speed.js'

export interface EngineRequest {
  id: number
  promptTokens: number
  maxTokens: number
  /**
   * An untimed request (one that honours end-of-sequence: the quality probe). Its steps draw jitter
   * and draft acceptance from a random stream of their own, so the benchmark's schedule is the same
   * with or without a probe before it.
   */
  side?: boolean
  /** Prompt tokens a prefix cache holds already (prefix-cache.ts): they skip prefill. */
  cachedTokens?: number
  /**
   * Acceptance of the request's own (acceptance.ts, `prompt` mode): its drafts drawn from a stream seeded by its
   * prompt, scaled; absent: from the launch's stream.
   */
  acceptance?: RequestAcceptance
}

export interface Emission {
  id: number
  /** Tokens delivered together (1, or 1 + accepted drafts). */
  tokens: number
  /** Whether this is the request's first token (end of its prefill). */
  first: boolean
  /** Whether the request has now generated `maxTokens`. */
  done: boolean
}

export interface StepResult {
  start: number
  end: number
  decodeSeqs: number
  prefillTokens: number
  emissions: Emission[]
  drafts: number
  draftTokens: number
  accepted: number
  /** Streams preempted at the end of this step (only with a `kv-tokens` budget). */
  preemptions?: number
}

interface Seq extends EngineRequest {
  prefilled: number
  generated: number
  /** Tokens to prefill again after a preemption (prompt + generated then); absent for a fresh request. */
  recompute?: number
  /** This request's acceptance scale (`speculative.accept-cv`, the accept factor); absent: the weights' own. */
  acceptScale?: number
  /** The request's own acceptance stream (`prompt` mode); absent: its stream's. */
  own?: Stream
}

/** Tokens a stream holds in the KV cache. */
const kvOf = (s: Seq) => s.promptTokens + s.generated

interface Stream {
  rng: Rng
  acceptDraw?: () => number
}

export class EngineModel {
  private readonly waiting: Seq[] = []
  private readonly running: Seq[] = []
  private readonly main: Stream
  private readonly side: Stream

  constructor(
    private readonly profile: Profile,
    rng: Rng,
    sideRng: Rng = sideStream(0),
    private readonly speed: EngineSpeed = {},
    /** Accepted drafts' scale for requests without their own acceptance (acceptance.ts `draftScale`); 1: none. */
    private readonly draftScale = 1,
  ) {
    const stream = (r: Rng): Stream => ({
      rng: r,
      acceptDraw: profile.speculative ? createBag(profile.speculative.accept, r) : undefined,
    })
    this.main = stream(rng)
    this.side = stream(sideRng)
  }

  private streamOf(seq: EngineRequest): Stream {
    return seq.side ? this.side : this.main
  }

  submit(request: EngineRequest): void {
    const spec = this.profile.speculative
    const cv = spec?.acceptCv ?? 0
    if (spec && request.acceptance) {
      const r = createRng(request.acceptance.seed)
      const own: Stream = { rng: r, acceptDraw: createBag(spec.accept, r) }
      const acceptScale = request.acceptance.scale * (cv > 0 ? jitterFactor(r, cv) : 1)
      this.waiting.push({ ...request, prefilled: request.cachedTokens ?? 0, generated: 0, own, acceptScale })
      return
    }
    // Drawn only when asked, so a profile without it keeps its schedule draw for draw.
    const jitter = cv > 0 ? jitterFactor(this.streamOf(request).rng, cv) : undefined
    const scale = jitter === undefined && this.draftScale === 1 ? {} : { acceptScale: (jitter ?? 1) * this.draftScale }
    this.waiting.push({ ...request, prefilled: request.cachedTokens ?? 0, generated: 0, ...scale })
  }

  /** Drops a request (client went away); tokens already planned for it are simply not delivered. */
  cancel(id: number): void {
    for (const list of [this.waiting, this.running]) {
      const i = list.findIndex((s) => s.id === id)
      if (i >= 0) list.splice(i, 1)
    }
  }

  get busy(): boolean {
    return this.waiting.length > 0 || this.running.length > 0
  }

  get inFlight(): { running: number; waiting: number } {
    return { running: this.running.length, waiting: this.waiting.length }
  }

  /** Plans and applies one step starting at `start` (ms); undefined when there is nothing to do. */
  step(start: number): StepResult | undefined {
    if (!this.busy) return undefined
    const p = this.profile
    const k = p.speculative?.k ?? 0
    const result: StepResult = {
      start,
      end: start,
      decodeSeqs: this.running.length,
      prefillTokens: 0,
      emissions: [],
      drafts: 0,
      draftTokens: 0,
      accepted: 0,
    }

    this.decodePass(result, k)

    if (p.kvTokens !== undefined) this.preempt(p.kvTokens, result)
    let budget = p.chunkTokens
    let slots = p.maxBatch - this.running.length
    let kvFree = p.kvTokens === undefined ? Infinity : p.kvTokens - this.kvUsed()
    const started: Seq[] = []
    const prefilled: Seq[] = []
    for (const seq of this.waiting) {
      if (budget <= 0 || slots <= 0) break
      const target = seq.recompute ?? seq.promptTokens
      // A prompt is admitted only while it fits the KV budget, unless nothing else runs.
      if (target > kvFree && this.running.length + started.length > 0) break
      kvFree -= target
      const take = Math.min(target - seq.prefilled, budget)
      prefilled.push(seq)
      seq.prefilled += take
      budget -= take
      slots -= 1
      result.prefillTokens += take
      if (seq.prefilled < target) break
      started.push(seq)
      result.emissions.push(this.prefillDone(seq))
    }

    const decodeMs = result.decodeSeqs > 0 ? p.stepMs(result.decodeSeqs) : 0
    const prefillMs = (result.prefillTokens / p.prefillTps) * 1000
    // A step that serves any benchmark request draws from the benchmark's stream.
    const sideOnly = this.running.every((seq) => seq.side) && prefilled.every((seq) => seq.side)
    const jitter = jitterFactor((sideOnly ? this.side : this.main).rng, p.jitterCv)
    result.end = start + ((decodeMs + prefillMs) * jitter) / speedAt(this.speed, start)

    this.waiting.splice(0, started.length)
    this.running.push(...started)
    for (let i = this.running.length - 1; i >= 0; i--)
      if (this.running[i].generated >= this.running[i].maxTokens) this.running.splice(i, 1)
    return result
  }

  /** One decode/verify pass of every running stream: 1 + accepted drafts each. */
  private decodePass(result: StepResult, k: number): void {
    for (const seq of this.running) {
      const want = 1 + this.accepted(seq, k)
      const tokens = Math.min(want, seq.maxTokens - seq.generated)
      if (k > 0) {
        result.drafts += 1
        result.draftTokens += k
        result.accepted += tokens - 1
      }
      seq.generated += tokens
      result.emissions.push({ id: seq.id, tokens, first: false, done: seq.generated >= seq.maxTokens })
    }
  }

  /** Drafts a verify step of `seq` accepts: the bag's draw, times the request's scale when it has one. */
  private accepted(seq: Seq, k: number): number {
    const stream = seq.own ?? this.streamOf(seq)
    const drawn = stream.acceptDraw ? stream.acceptDraw() : 0
    if (seq.acceptScale === undefined) return drawn
    return Math.min(k, Math.floor(drawn * seq.acceptScale + stream.rng()))
  }

  /** The stream's next token once its prompt (or, after a preemption, prompt and output so far) is in the cache. */
  private prefillDone(seq: Seq): Emission {
    if (seq.recompute === undefined) {
      seq.generated = 1
      return { id: seq.id, tokens: 1, first: true, done: seq.maxTokens <= 1 }
    }
    delete seq.recompute
    seq.generated += 1
    return { id: seq.id, tokens: 1, first: false, done: seq.generated >= seq.maxTokens }
  }

  /**
   * KV tokens the unfinished running streams hold: prompt and generated tokens, as the last planned step left them
   * (a step's tokens are counted from its planning, delivered at its end).
   */
  kvUsed(): number {
    return this.running.reduce((n, s) => n + (s.generated < s.maxTokens ? kvOf(s) : 0), 0)
  }

  /** While the running streams exceed the budget, the newest unfinished one goes back to the front of the queue. */
  private preempt(kvTokens: number, result: StepResult): void {
    while (this.kvUsed() > kvTokens) {
      const live = this.running.filter((s) => s.generated < s.maxTokens)
      if (live.length < 2) return
      const victim = live[live.length - 1]
      this.running.splice(this.running.indexOf(victim), 1)
      victim.recompute = victim.promptTokens + victim.generated
      victim.prefilled = 0
      this.waiting.unshift(victim)
      result.preemptions = (result.preemptions ?? 0) + 1
    }
  }
}
