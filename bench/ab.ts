/**
 * Same-box A/B figures: `npx tsx bench/ab.ts [--trials N] [--launches N] [--max-launches N] [--startup S] [--box X]
 * [--regime-share P] [--regime-factor F] [--own-rounds] [--history N]`.
 *
 * Runs the shipped decision chain — `judgeCell` against a stored baseline, the confirmation re-measurement
 * (`confirmCell`), `abWanted` and the sequential A/B (`abCellVerdict` after every pair from `--launches`
 * (default 2) to `--max-launches` (default 6) per arm, `final` on the last) — in virtual time on the simulator's
 * engine model (src/sim: engine.ts, virtual-run.ts, speed.ts), so thousands of PRs take seconds. Every launch
 * draws its own speed offset (`launch-cv` 3 %) and, in the second table, a launch regime (a share of launches
 * `--regime-factor` slower, vLLM #39903); the box is 8 % slower today (`--box`, default 0.92) than on the day the
 * baseline was stored at 1.0, and nothing in the environment fingerprint shows it (the hard case: `ab: confirm`
 * gets no hint from a changed driver). Before the PR, main ran `--history` times (default 12, one launch each, at
 * 1.0): the stored reference and the launch-to-launch spread main measured (compare/noise.ts), which the A/B expects
 * of its launches where it is above the floor (compare/ab-cell.ts launchSpreadOf); `--history 0` stores one baseline
 * file and nothing else. The gate is the built-in one (decode 5 %, TTFT 10 % and 50 ms, failed requests 1 %); rounds
 * 3, discard 1, confirm 1, noise floor 1.5 %.
 *
 * Printed, per regime setting: for identical PRs and PRs with a decode change of twice the limit (−10 %, +10 %),
 * the share of PRs `ab: confirm` calls a regression, inconclusive, a pass or an improvement, and the A/B's mean
 * launches per arm; beside them Wald's expected sample number (pairs) for the guarantees' error rates (1 % false
 * regressions, 5 % missed 2L losses) at the pair noise this simulator shows, computed as in Wald (1945), and the
 * ratio of ours to it. Then the engine time per identical PR per mode — launches and measuring time — on the seed
 * cell (1,024/128 at concurrency 8, vllm-qwen36-27b-fp8) and on the demo matrix (fixtures/demo.yml); a launch's
 * start-up is not simulated: `--startup` adds that many seconds per launch (0 by default), which the warm rounds per
 * A/B launch are allotted by (compare/ab-rounds.ts; `--own-rounds` keeps the cell's two).
 */
import { parseArgs } from 'node:util'
import {
  abCellVerdict,
  abFinal,
  abUndecided,
  abWanted,
  abWarmRounds,
  confirmCell,
  judgeCell,
  needsConfirmation,
  type BaselineView,
} from '../src/compare/index.js'
import { loadPlan } from '../src/config/index.js'
import type { AbMode, CellPlan } from '../src/core/plan.js'
import { loadProfile } from '../src/sim/index.js'
import { createRng, normal } from '../src/sim/rng.js'
import { PASS_K, REGRESSION_K } from '../src/compare/sequential.js'
import { NOISE_FLOOR } from '../src/compare/noise.js'
import { historyEntry } from '../src/store/merge.js'
import {
  drawSpeed,
  GATE,
  LAUNCH_CV,
  measure,
  SEED_CELL,
  seeds,
  virtualAb,
  type Cell,
  type Regimes,
} from './virtual-launch.js'

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '2000' },
    startup: { type: 'string', default: '0' },
    launches: { type: 'string', default: '2' },
    box: { type: 'string', default: '0.92' },
    'max-launches': { type: 'string', default: '6' },
    'regime-share': { type: 'string', default: '0.15' },
    'regime-factor': { type: 'string', default: '0.9' },
    'own-rounds': { type: 'boolean', default: false },
    history: { type: 'string', default: '12' },
  },
})
const TRIALS = Number(values.trials)
const STARTUP_MS = Number(values.startup) * 1000
const BOX = Number(values.box)
const LAUNCHES = Number(values.launches)
const MAX_LAUNCHES = Math.max(LAUNCHES, Number(values['max-launches']))
/** Default-branch runs stored before the PR, at the box's old speed (0: only a baseline file). */
const HISTORY = Number(values.history)
const REGIMES = { regimeShare: Number(values['regime-share']), regimeFactor: Number(values['regime-factor']) }
/** Launch regimes of the current table (none, or REGIMES). */
let regimes: Regimes = {}

/** One measurement on a launch of the given speed, its start-up recorded as `--startup` says. */
const measured = (cell: Cell, speed: number, seed: number, warm?: number) =>
  measure(cell, speed, seed, { warm, startupMs: STARTUP_MS })

interface Outcome {
  status: string
  /** Launches of the PR's engine and both arms. */
  launches: number
  /** The A/B's launches per arm (0: no A/B). */
  abLaunches: number
  ms: number
}

/** One PR of one target's cells under a mode: the stored-baseline verdict, its confirmation, the A/B if wanted. */
function onePr(cells: readonly Cell[], effect: number, mode: AbMode, seed: number): Outcome[] {
  const draw = seeds(seed)
  const speed = (box: number) => drawSpeed(draw, box, regimes)
  // Main's runs, one launch each, newest last; the newest is also the baseline file.
  const mainRuns = Array.from({ length: Math.max(1, HISTORY) }, (_, i) => ({
    schema: 'llm-bench-gate/results@1' as const,
    run: { ...RUN, sha: i.toString(16).padStart(40, '0') },
    cells: cells.map((c) => measured(c, speed(1), draw()).result),
  }))
  const view: BaselineView = {
    results: mainRuns[mainRuns.length - 1],
    history: HISTORY > 0 ? mainRuns.map((r) => historyEntry(r, { [r.cells[0].target]: GATE })) : [],
  }
  const head = speed(BOX) * effect
  let ms = 0
  // Warm rounds per A/B launch from the PR's own first measurement (compare/ab-rounds.ts), as same-box.ts takes them.
  const warm = new Map<string, number>()
  const judged = cells.map((c) => {
    const first = measured(c, head, draw())
    ms += first.ms
    const cell = { ...first.result, verdict: judgeCell(first.result, view, GATE) }
    warm.set(c.id, values['own-rounds'] ? 2 : abWarmRounds(cell, GATE, NOISE_FLOOR, 2))
    if (!needsConfirmation(cell.verdict)) return cell
    const again = measured(c, head, draw())
    ms += again.ms
    return { ...cell, verdict: confirmCell(cell, [again.result], view, GATE) }
  })
  const wanted = judged.filter((c) => abWanted(c, mode))
  if (!wanted.length) return judged.map((c) => ({ status: c.verdict.status, launches: 1, abLaunches: 0, ms }))
  // ABBA: every launch measures every wanted cell of the target; from the minimum on, another pair (a launch per
  // arm) while a cell's A/B verdict asks for launches, up to MAX_LAUNCHES per arm (target-run/ab-launches.ts).
  const ab = virtualAb({
    cells: wanted.map((w) => cells.find((x) => x.id === w.id)!),
    launches: LAUNCHES,
    maxLaunches: MAX_LAUNCHES,
    speed: (arm) => speed(BOX) * (arm === 'pr' ? effect : 1),
    pairSeed: draw,
    warm,
    undecided: (runs) => wanted.some((c) => abUndecided(c, runs, GATE)),
    startupMs: STARTUP_MS,
  })
  const arms = ab.runs
  const verdictOf = (i: number) =>
    abCellVerdict(
      arms.map((a) => ({ arm: a.arm, cell: a.cells!.get(wanted[i].id)! })),
      GATE,
      { final: true, stored: wanted[i].verdict },
    )
  ms += ab.measuringMs
  return judged.map((c) => {
    const i = wanted.findIndex((w) => w.id === c.id)
    const abLaunches = arms.length / 2
    if (i < 0) return { status: c.verdict.status, launches: 1 + arms.length, abLaunches, ms }
    const final = abFinal({ stored: c.verdict, ab: verdictOf(i), said: 'A/B' })
    return { status: final.status, launches: 1 + arms.length, abLaunches, ms }
  })
}

const RUN = {
  sha: 'b'.repeat(40),
  ref: 'refs/heads/main',
  event: 'push',
  runUrl: '',
  startedAt: '2026-01-01T00:00:00Z',
  hardware: 'sim',
  tool: { name: 'llm-bench-gate' as const, version: '0' },
}

const MODES: AbMode[] = ['off', 'confirm', 'always']

/**
 * The sd of one pair's log-ratio of decode on this simulator: two launches of the same build at the box factor,
 * measured with the same seed, as the A/B pairs them.
 */
function pairSd(samples: number): number {
  const draw = seeds(31337)
  const ratios = Array.from({ length: samples }, () => {
    const seed = draw()
    const one = () => measured(SEED_CELL, drawSpeed(draw, BOX, regimes), seed).result.metrics!.decode_tps.mean
    return Math.log(one() / one())
  })
  const m = ratios.reduce((a, b) => a + b, 0) / samples
  return Math.sqrt(ratios.reduce((a, r) => a + (r - m) ** 2, 0) / (samples - 1))
}

/**
 * Wald's expected sample number (pairs) for H0 μ = 0 against H1 μ = μ₁ with Gaussian pairs of sd σ, at α false
 * regressions and β missed losses, ignoring overshoot (Wald 1945): E0 under no change, E1 under the loss.
 */
function waldAsn(sd: number, mu1: number, alpha = 0.01, beta = 0.05): { e0: number; e1: number } {
  const info = mu1 ** 2 / (2 * sd ** 2)
  const [up, down] = [Math.log((1 - beta) / alpha), Math.log(beta / (1 - alpha))]
  return {
    e0: ((1 - alpha) * down + alpha * up) / -info,
    e1: ((1 - beta) * up + beta * down) / info,
  }
}

/**
 * The same test with the noise known, at the same looks (after LAUNCHES, LAUNCHES + 1 … MAX_LAUNCHES pairs) and
 * thresholds: Wald's likelihood ratio n·μ₁/σ²·(m − μ₁/2) on Gaussian pairs of sd σ and mean μ. Its mean pairs are the
 * fewest a test that starts with a full ABBA block can take; ours over it is the price of not knowing σ.
 */
function knownNoisePairs(sd: number, mu: number, trials: number): number {
  const rng = createRng(4242)
  const looks = Array.from({ length: MAX_LAUNCHES - LAUNCHES + 1 }, (_, k) => LAUNCHES + k)
  let pairs = 0
  for (let t = 0; t < trials; t++) {
    let sum = 0
    let n = 0
    for (const look of looks) {
      while (n < look) {
        sum += mu + sd * normal(rng)
        n++
      }
      const llr = (n * LOSS * (sum / n - LOSS / 2)) / sd ** 2
      if (llr >= Math.log(REGRESSION_K) || llr <= -Math.log(PASS_K)) break
    }
    pairs += n
  }
  return pairs / trials
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const LOSS = -Math.log(0.9)

console.log(
  `A/B figures: launch-cv ${LAUNCH_CV * 100} %, box ${BOX} against a baseline stored at 1.0, ab: confirm, ABBA, looked at after every pair from ${LAUNCHES} to ${MAX_LAUNCHES} launches per arm, ${TRIALS} PRs per case (seed cell ${SEED_CELL.inputTokens}/${SEED_CELL.outputTokens} at concurrency ${SEED_CELL.concurrency}, decode limit 5 %)`,
)
for (const setting of [{}, REGIMES] as Regimes[]) {
  regimes = setting
  const sd = pairSd(Math.min(TRIALS, 2000))
  const wald = waldAsn(sd, LOSS)
  const named = setting.regimeShare
    ? `launch regimes: ${pct(setting.regimeShare)} of launches ${pct(1 - setting.regimeFactor!)} slower`
    : 'one launch regime'
  console.log(
    `\n${named}; a pair's decode log-ratio has sd ${pct(sd)}; Wald's expected pairs: ${wald.e0.toFixed(2)} (no change), ${wald.e1.toFixed(2)} (−10 %)`,
  )
  console.log(
    '| PR | regression | inconclusive | pass | improvement | A/B launches per arm | Wald | ours ÷ Wald | noise known, same looks | ours ÷ it |',
  )
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const [name, effect, asn] of [
    ['identical', 1, wald.e0],
    ['decode −10 % (2L)', 0.9, wald.e1],
    ['decode +10 %', 1.1, wald.e0],
  ] as const) {
    const known = effect === 1.1 ? undefined : knownNoisePairs(sd, effect === 1 ? 0 : LOSS, 20000)
    const outcomes = Array.from({ length: TRIALS }, (_, t) => onePr([SEED_CELL], effect, 'confirm', 7919 * (t + 1))[0])
    const share = (s: string) => pct(outcomes.filter((o) => o.status === s).length / outcomes.length)
    const ran = outcomes.filter((o) => o.abLaunches > 0)
    const perArm = ran.reduce((a, o) => a + o.abLaunches, 0) / Math.max(1, ran.length)
    const ratio = effect === 1.1 ? '' : `${(perArm / asn).toFixed(2)}×`
    console.log(
      `| ${name} | ${share('regression')} | ${share('inconclusive')} | ${share('pass')} | ${share('improvement')} | ${ran.length ? perArm.toFixed(2) : '—'} (${ran.length} of ${outcomes.length} ran one) | ${effect === 1.1 ? '' : asn.toFixed(2)} | ${ratio} | ${known?.toFixed(2) ?? ''} | ${known ? `${(perArm / known).toFixed(2)}×` : ''} |`,
    )
  }
}
regimes = {}

/** Engine time per PR of a set of targets: launches × start-up plus the measuring time, averaged over PRs. */
function engineTime(targets: Cell[][], mode: AbMode, trials: number): string {
  let launches = 0
  let ms = 0
  for (let t = 0; t < trials; t++)
    for (const cells of targets) {
      const o = onePr(cells, 1, mode, 104729 * (t + 1) + cells.length)[0]
      launches += o.launches
      ms += o.ms
    }
  const perPr = (ms + launches * STARTUP_MS) / trials
  return `${(launches / trials).toFixed(1)} launches, ${(perPr / 1000).toFixed(1)} s of engine time`
}

const demo = await loadPlan('fixtures/demo.yml')
const demoTargets = demo.targets.map((target) =>
  demo.cells
    .filter((c: CellPlan) => c.target.id === target.id)
    .map((c) => ({
      id: c.id,
      profile: loadProfile(String(target.engineOptions.profile)),
      inputTokens: c.scenario.inputTokens,
      outputTokens: c.scenario.outputTokens,
      concurrency: c.scenario.concurrency,
    })),
)
const costTrials = Math.max(1, Math.round(TRIALS / 4))
console.log(
  `Engine time per identical PR at box ${BOX} (${costTrials} PRs; start-up ${STARTUP_MS / 1000} s per launch):`,
)
for (const mode of MODES) {
  console.log(
    `  ab: ${mode.padEnd(8)} seed cell: ${engineTime([[SEED_CELL]], mode, costTrials)}; demo matrix (${demo.targets.length} targets, ${demo.cells.length} cells): ${engineTime(demoTargets, mode, costTrials)}`,
  )
}
