/**
 * Runs the engine model in pure virtual time (no timers): what a client would observe for a
 * given arrival pattern, and the per-request figures of a closed-loop round-based benchmark
 * (TTFT, TPOT, e2e and decode tok/s, defined as the bench client defines them in bench/rounds/round.ts).
 * The tests hold every shipped profile to its published row through this.
 */
import { EngineModel } from './engine.js'
import type { Profile } from './profile.js'
import { createRng, sideStream } from './rng.js'
import type { EngineSpeed } from './speed.js'
import { mean } from '../core/stats.js'

export interface Arrival {
  at: number
  promptTokens: number
  maxTokens: number
}

export interface Observed {
  arrival: number
  /** Delivery times (ms) and token counts of each token-bearing event. */
  events: { at: number; tokens: number }[]
}

/** Feeds arrivals (any order) to a fresh engine and steps it until every request finished. */
export function simulate(
  profile: Profile,
  seed: number,
  arrivals: readonly Arrival[],
  engine = new EngineModel(profile, createRng(seed)),
): Observed[] {
  const order = arrivals.map((a, id) => ({ ...a, id })).sort((a, b) => a.at - b.at || a.id - b.id)
  const observed: Observed[] = arrivals.map((a) => ({ arrival: a.at, events: [] }))
  let next = 0
  let now = order[0]?.at ?? 0
  const admit = (until: number) => {
    for (; next < order.length && order[next].at <= until; next++)
      engine.submit({ id: order[next].id, promptTokens: order[next].promptTokens, maxTokens: order[next].maxTokens })
  }
  for (let guard = 0; guard < 10_000_000; guard++) {
    admit(now)
    if (!engine.busy) {
      if (next >= order.length) return observed
      now = order[next].at
      continue
    }
    const step = engine.step(now) as NonNullable<ReturnType<EngineModel['step']>>
    for (const e of step.emissions) observed[e.id].events.push({ at: step.end, tokens: e.tokens })
    now = step.end
  }
  throw new Error(`simulate ${profile.name}: did not finish`)
}

export interface RoundFigures {
  ttftMs: number
  tpotMs: number
  e2eMs: number
  outputTps: number
  prefillTps: number
  decodeTps: number
  durationMs: number
  /** Per-request TTFTs, for distribution checks. */
  ttfts: number[]
}

/** TTFT, e2e and TPOT = (e2e − TTFT) / (tokens − 1) per request, as `vllm bench serve` defines them, averaged over a round's requests. */
export function roundFigures(requests: Observed[]): RoundFigures {
  const per = requests.map((r) => {
    const tokens = r.events.reduce((a, e) => a + e.tokens, 0)
    const ttft = r.events[0].at - r.arrival
    const e2e = r.events[r.events.length - 1].at - r.arrival
    const tpot = tokens > 1 ? (e2e - ttft) / (tokens - 1) : 0
    return { tokens, ttft, e2e, tpot }
  })
  const start = Math.min(...requests.map((r) => r.arrival))
  const end = Math.max(...requests.map((r) => r.events[r.events.length - 1].at))
  return {
    ttftMs: mean(per.map((p) => p.ttft)),
    tpotMs: mean(per.map((p) => p.tpot)),
    e2eMs: mean(per.map((p) => p.e2e)),
    outputTps: per.reduce((a, p) => a + p.tokens, 0) / ((end - start) / 1000),
    prefillTps: 0,
    decodeTps: mean(per.map((p) => (p.tpot > 0 ? 1000 / p.tpot : 0))),
    durationMs: end - start,
    ttfts: per.map((p) => p.ttft),
  }
}

export interface Workload {
  inputTokens: number
  outputTokens: number
  concurrency: number
  rounds: number
  discard: number
}

/**
 * Closed-loop rounds on one engine: each round sends `concurrency` requests at once and the
 * next round starts when the last one finished. Returns every round and the steady-state mean
 * over the rounds after `discard`. `speed` runs the engine as one launch would (`speed.ts`).
 */
export function runRounds(
  profile: Profile,
  seed: number,
  w: Workload,
  speed: EngineSpeed = {},
): { rounds: RoundFigures[]; steady: Omit<RoundFigures, 'ttfts'> } {
  const engine = new EngineModel(profile, createRng(seed), sideStream(0), speed)
  const rounds: RoundFigures[] = []
  let at = 0
  for (let r = 0; r < w.rounds; r++) {
    const arrivals = Array.from({ length: w.concurrency }, () => ({
      at,
      promptTokens: w.inputTokens,
      maxTokens: w.outputTokens,
    }))
    const figures = roundFigures(simulate(profile, seed, arrivals, engine))
    figures.prefillTps = mean(figures.ttfts.map((t) => w.inputTokens / (t / 1000)))
    rounds.push(figures)
    at += figures.durationMs
  }
  const kept = rounds.slice(w.discard)
  const avg = (key: Exclude<keyof RoundFigures, 'ttfts'>) => mean(kept.map((r) => r[key]))
  return {
    rounds,
    steady: {
      ttftMs: avg('ttftMs'),
      tpotMs: avg('tpotMs'),
      e2eMs: avg('e2eMs'),
      outputTps: avg('outputTps'),
      prefillTps: avg('prefillTps'),
      decodeTps: avg('decodeTps'),
      durationMs: avg('durationMs'),
    },
  }
}
