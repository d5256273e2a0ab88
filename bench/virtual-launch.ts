/**
 * What the virtual-time benches share (bench/ab.ts, bench/bisect.ts): a cell measured on one launch of the
 * simulator's engine model (src/sim: engine.ts, virtual-run.ts), each launch drawing its own speed as the simulator
 * does (src/sim/speed.ts), the seed cell and the built-in gate, and the launches of a same-box A/B as
 * target-run/ab-launches.ts runs them: ABBA order, one seed per pair, from the minimum on another pair while the
 * caller says a cell is undecided, up to the most per arm, and no base launch past the engine time left.
 */
import { abOrder, type AbRun, type Arm } from '../src/compare/index.js'
import type { MetricsBlock, RoundResult, Stats } from '../src/core/measurements.js'
import type { GateConfig } from '../src/core/plan.js'
import type { CellResult } from '../src/core/results.js'
import { launchSpeed, loadProfile, runRounds, type Profile } from '../src/sim/index.js'

/** Launch-to-launch speed spread of the simulated engine (`launch-cv`). */
export const LAUNCH_CV = 0.03

/** The built-in gate: decode 5 %, TTFT 10 % and 50 ms, failed requests 1 %. */
export const GATE: GateConfig = {
  decode: { maxRegression: 0.05, stat: 'mean' },
  ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
  'failed-requests': { max: 0.01 },
}

export interface Cell {
  id: string
  profile: Profile
  inputTokens: number
  outputTokens: number
  concurrency: number
}

/** 1,024/128 at concurrency 8 on vllm-qwen36-27b-fp8. */
export const SEED_CELL: Cell = {
  id: 'fp8/seed',
  profile: loadProfile('vllm-qwen36-27b-fp8'),
  inputTokens: 1024,
  outputTokens: 128,
  concurrency: 8,
}

/** Launch regimes (src/sim/speed.ts): a share of launches a factor slower; none when empty. */
export interface Regimes {
  regimeShare?: number
  regimeFactor?: number
}

/** A seeded stream of launch seeds: each launch its own offset. */
export function seeds(start: number): () => number {
  let next = start
  return () => (next = (Math.imul(next, 1103515245) + 12345) >>> 0)
}

/** One launch's speed on a box of factor `box`: its own offset (launch-cv) and regime from the next seed. */
export function drawSpeed(draw: () => number, box: number, regimes: Regimes): number {
  return launchSpeed({ launchCv: LAUNCH_CV, launchSeed: draw(), boxFactor: box, ...regimes })
}

const stat = (v: number): Stats => ({ mean: v, p50: v, p90: v, p99: v, std: 0, min: v, max: v })

/**
 * One measurement of a cell on a launch of the given speed: closed-loop rounds, the first discarded, `warm` kept;
 * `ms` is the measuring time, without the launch's start-up (`startupMs` is only recorded on the cell).
 */
export function measure(
  cell: Cell,
  speed: number,
  seed: number,
  o: { warm?: number; startupMs?: number } = {},
): { result: CellResult; ms: number } {
  const { warm = 2, startupMs = 0 } = o
  const w = { inputTokens: cell.inputTokens, outputTokens: cell.outputTokens, concurrency: cell.concurrency }
  const { rounds } = runRounds(cell.profile, seed, { ...w, rounds: 1 + warm, discard: 1 }, { multiplier: speed })
  const block = (r: (typeof rounds)[number]): MetricsBlock => ({
    ttft_ms: stat(r.ttftMs),
    tpot_ms: stat(r.tpotMs),
    itl_ms: stat(r.tpotMs),
    e2e_ms: stat(r.e2eMs),
    decode_tps: stat(r.decodeTps),
    prefill_tps: stat(r.prefillTps),
    output_tps: r.outputTps,
    total_tps: r.outputTps,
    per_user_tps: r.outputTps / cell.concurrency,
    request_tps: 0,
    failed_share: 0,
  })
  const results: RoundResult[] = rounds.map((r, index) => ({
    index,
    steady: index >= 1,
    requests: cell.concurrency,
    errors: 0,
    errorReasons: [],
    durationMs: r.durationMs,
    metrics: block(r),
    achieved: {
      promptTokens: { min: cell.inputTokens, max: cell.inputTokens },
      outputTokens: { min: cell.outputTokens, max: cell.outputTokens },
    },
  }))
  const steady = rounds.slice(1)
  const avg = (pick: (r: (typeof rounds)[number]) => number) => steady.reduce((s, r) => s + pick(r), 0) / steady.length
  const metrics = block({
    ...steady[0],
    ttftMs: avg((r) => r.ttftMs),
    tpotMs: avg((r) => r.tpotMs),
    e2eMs: avg((r) => r.e2eMs),
    decodeTps: avg((r) => r.decodeTps),
    prefillTps: avg((r) => r.prefillTps),
    outputTps: avg((r) => r.outputTps),
  })
  const [target, scenario] = cell.id.split('/')
  const result: CellResult = {
    ...{ id: cell.id, target, scenario, engine: 'sim', quant: null, model: null, status: 'ok', error: null },
    flags: [],
    workload: { ...w, requests: cell.concurrency, rate: null, api: 'completions' },
    metrics,
    rounds: results,
    info: {},
    verdict: { status: 'new', metrics: {} },
    ...(startupMs > 0 && { startup_s: startupMs / 1000 }),
  }
  return { result, ms: rounds.reduce((s, r) => s + r.durationMs, 0) }
}

export interface VirtualAbOptions {
  cells: readonly Cell[]
  /** Launches per arm at least (`ab-launches`) and at most (`ab-max-launches`). */
  launches: number
  maxLaunches: number
  /** The next launch's speed for its arm; called before the pair's seed is drawn. */
  speed(arm: Arm): number
  /** The next pair's seed: both launches of a pair send the same prompts. */
  pairSeed(): number
  /** Warm rounds per launch by cell id (default 2). */
  warm?: ReadonlyMap<string, number>
  /** Whether the launches so far leave a cell undecided: another pair runs. */
  undecided(runs: readonly AbRun[]): boolean
  /** A launch's start-up, ms, counted in its engine time. */
  startupMs?: number
  /**
   * Engine time left for the base arm, ms (`ab-budget`, `bisect-budget`): no base launch starts with none left, none
   * runs past it, no pair starts whose base launch would not fit. Absent: unbounded.
   */
  budgetLeftMs?: number
}

export interface VirtualAb {
  /** The launches in order; a launch's engine time is its measuring plus its start-up. */
  runs: AbRun[]
  /** Measuring time of all launches, ms. */
  measuringMs: number
  /** Why the A/B ended before its last launch (the budget): nothing is paired. */
  stopped?: string
}

/** The launches of one same-box A/B in virtual time (see the header). */
export function virtualAb(o: VirtualAbOptions): VirtualAb {
  const startupMs = o.startupMs ?? 0
  const left = o.budgetLeftMs ?? Infinity
  const runs: AbRun[] = []
  let measuringMs = 0
  let pairSeed = 0
  const morePairs = () => {
    if (!o.undecided(runs) || runs.length / 2 + 1 > o.maxLaunches) return false
    const base = runs.filter((r) => r.arm === 'base').map((r) => r.engineMs)
    return base.reduce((a, b) => a + b, 0) / base.length <= left
  }
  for (const [l, arm] of abOrder(Math.max(o.launches, o.maxLaunches)).entries()) {
    if (l >= 2 * o.launches && l % 2 === 0 && !morePairs()) break
    if (arm === 'base' && left <= 0) return { runs, measuringMs, stopped: 'budget spent before a base launch' }
    const speed = o.speed(arm)
    if (l % 2 === 0) pairSeed = o.pairSeed()
    const measured = o.cells.map((c) => measure(c, speed, pairSeed, { warm: o.warm?.get(c.id), startupMs }))
    const ms = measured.reduce((s, m) => s + m.ms, 0)
    if (arm === 'base' && startupMs + ms > left) {
      measuringMs += Math.max(0, left - startupMs)
      return { runs: [...runs, { arm, error: 'budget spent', engineMs: left }], measuringMs, stopped: 'budget spent' }
    }
    measuringMs += ms
    runs.push({ arm, engineMs: startupMs + ms, cells: new Map(o.cells.map((c, i) => [c.id, measured[i].result])) })
  }
  return { runs, measuringMs }
}
