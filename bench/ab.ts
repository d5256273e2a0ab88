/**
 * Same-box A/B figures: `npx tsx bench/ab.ts [--trials N] [--launches N] [--startup S] [--box X]`.
 *
 * Runs the shipped decision chain — `judgeCell` against a stored baseline, the confirmation re-measurement
 * (`confirmCell`), `abWanted` and the A/B verdict (`abCellVerdict`) on ABBA × `--launches` (default 2) — in virtual time on the
 * simulator's engine model (src/sim: engine.ts, virtual-run.ts, speed.ts), so thousands of PRs take seconds.
 * Every launch draws its own speed offset (`launch-cv` 3 %); the box is 8 % slower today (`--box`, default 0.92) than
 * on the day the baseline was stored at 1.0, and nothing in the environment fingerprint shows it (the hard case:
 * `ab: confirm` gets no hint from a changed driver). The gate is the built-in one (decode 5 %, TTFT 10 % and
 * 50 ms, failed requests 1 %); rounds 3, discard 1, confirm 1, noise floor 1.5 %.
 *
 * Printed: for identical PRs, a −10 % PR and a +10 % PR on the slower box, the share of PRs each mode calls a
 * regression, inconclusive or a pass; and the engine time per PR per mode — launches and measuring time — on the
 * seed cell (1,024/128 at concurrency 8, vllm-qwen36-27b-fp8) and on the demo matrix (fixtures/demo.yml). A
 * launch's start-up is not simulated: `--startup` adds that many seconds per launch (0 by default).
 */
import { parseArgs } from 'node:util'
import {
  AB_MAX_LAUNCHES,
  abCellVerdict,
  abFinal,
  abOrder,
  abUndecided,
  abWanted,
  confirmCell,
  judgeCell,
  needsConfirmation,
  type Arm,
  type BaselineView,
} from '../src/compare/index.js'
import { loadPlan } from '../src/config/index.js'
import type { MetricsBlock, RoundResult, Stats } from '../src/core/measurements.js'
import type { AbMode, CellPlan, GateConfig } from '../src/core/plan.js'
import type { CellResult } from '../src/core/results.js'
import { launchSpeed, loadProfile, runRounds, type Profile } from '../src/sim/index.js'

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '2000' },
    startup: { type: 'string', default: '0' },
    launches: { type: 'string', default: '2' },
    box: { type: 'string', default: '0.92' },
  },
})
const TRIALS = Number(values.trials)
const STARTUP_MS = Number(values.startup) * 1000
const LAUNCH_CV = 0.03
const BOX = Number(values.box)
const LAUNCHES = Number(values.launches)
const GATE: GateConfig = {
  decode: { maxRegression: 0.05, stat: 'mean' },
  ttft: { maxRegression: 0.1, minDelta: 50, stat: 'mean' },
  'failed-requests': { max: 0.01 },
}

interface Cell {
  id: string
  profile: Profile
  inputTokens: number
  outputTokens: number
  concurrency: number
}

const stat = (v: number): Stats => ({ mean: v, p50: v, p90: v, p99: v, std: 0, min: v, max: v })

/** One measurement of a cell on a launch of the given speed: three closed-loop rounds, the first discarded. */
function measure(cell: Cell, speed: number, seed: number): { result: CellResult; ms: number } {
  const w = { inputTokens: cell.inputTokens, outputTokens: cell.outputTokens, concurrency: cell.concurrency }
  const { rounds } = runRounds(cell.profile, seed, { ...w, rounds: 3, discard: 1 }, { multiplier: speed })
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
  }
  return { result, ms: rounds.reduce((s, r) => s + r.durationMs, 0) }
}

/** A seeded stream of launch seeds: each launch its own offset. */
function seeds(start: number): () => number {
  let next = start
  return () => (next = (Math.imul(next, 1103515245) + 12345) >>> 0)
}

interface Outcome {
  status: string
  launches: number
  ms: number
}

/** One PR of one target's cells under a mode: the stored-baseline verdict, its confirmation, the A/B if wanted. */
function onePr(cells: readonly Cell[], effect: number, mode: AbMode, seed: number): Outcome[] {
  const draw = seeds(seed)
  const speed = (box: number) => launchSpeed({ launchCv: LAUNCH_CV, launchSeed: draw(), boxFactor: box })
  const stored = cells.map((c) => measure(c, speed(1), draw()).result)
  const view: BaselineView = { results: { schema: 'llm-bench-gate/results@1', run: RUN, cells: stored }, history: [] }
  const head = speed(BOX) * effect
  let ms = 0
  const judged = cells.map((c) => {
    const first = measure(c, head, draw())
    ms += first.ms
    const cell = { ...first.result, verdict: judgeCell(first.result, view, GATE) }
    if (!needsConfirmation(cell.verdict)) return cell
    const again = measure(c, head, draw())
    ms += again.ms
    return { ...cell, verdict: confirmCell(cell, [again.result], view, GATE) }
  })
  const wanted = judged.filter((c) => abWanted(c, mode))
  if (!wanted.length) return judged.map((c) => ({ status: c.verdict.status, launches: 1, ms }))
  // ABBA: every launch measures every wanted cell of the target; from the minimum on, another block (two launches
  // per arm) while a cell's A/B verdict asks for launches, up to AB_MAX_LAUNCHES per arm (target-run/ab-launches.ts).
  let pairSeed = 0
  const order = abOrder(Math.max(LAUNCHES, AB_MAX_LAUNCHES))
  const arms: { arm: Arm; cells: { result: CellResult; ms: number }[] }[] = []
  const verdictOf = (i: number) =>
    abCellVerdict(
      arms.map((a) => ({ arm: a.arm, cell: a.cells[i].result })),
      GATE,
    )
  const runs = () =>
    arms.map((a) => ({ arm: a.arm, engineMs: 0, cells: new Map(wanted.map((c, i) => [c.id, a.cells[i].result])) }))
  for (const [l, arm] of order.entries()) {
    const boundary = l >= 2 * LAUNCHES && (l - 2 * LAUNCHES) % 4 === 0
    if (boundary && (l / 2 + 2 > AB_MAX_LAUNCHES || !wanted.some((c) => abUndecided(c.id, runs(), GATE)))) break
    const s = speed(BOX) * (arm === 'pr' ? effect : 1)
    // Both launches of a pair send the same prompts at the same times, as the action does.
    if (l % 2 === 0) pairSeed = draw()
    arms.push({
      arm,
      cells: wanted.map((c) =>
        measure(
          cells.find((x) => x.id === c.id)!,
          s,
          pairSeed,
        ),
      ),
    })
  }
  for (const a of arms) ms += a.cells.reduce((s, m) => s + m.ms, 0)
  return judged.map((c) => {
    const i = wanted.findIndex((w) => w.id === c.id)
    if (i < 0) return { status: c.verdict.status, launches: 1 + arms.length, ms }
    const final = abFinal({ stored: c.verdict, ab: verdictOf(i), said: 'A/B' })
    return { status: final.status, launches: 1 + arms.length, ms }
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

function rates(outcomes: Outcome[]): string {
  const share = (s: string) => ((100 * outcomes.filter((o) => o.status === s).length) / outcomes.length).toFixed(1)
  return `regression ${share('regression')} %, inconclusive ${share('inconclusive')} %, pass ${share('pass')} %, improvement ${share('improvement')} %`
}

const MODES: AbMode[] = ['off', 'confirm', 'always']
const SEED_CELL: Cell = {
  id: 'fp8/seed',
  profile: loadProfile('vllm-qwen36-27b-fp8'),
  inputTokens: 1024,
  outputTokens: 128,
  concurrency: 8,
}

console.log(
  `A/B figures: launch-cv ${LAUNCH_CV * 100} %, box ${BOX} against a baseline stored at 1.0, ABBA × ${LAUNCHES}, ${TRIALS} PRs per case (seed cell ${SEED_CELL.inputTokens}/${SEED_CELL.outputTokens} at concurrency ${SEED_CELL.concurrency})`,
)
for (const [name, effect] of [
  ['identical PR', 1],
  ['PR 10 % slower', 0.9],
  ['PR 10 % faster', 1.1],
] as const) {
  for (const mode of MODES) {
    const outcomes = Array.from({ length: TRIALS }, (_, t) => onePr([SEED_CELL], effect, mode, 7919 * (t + 1))[0])
    console.log(`  ${name.padEnd(15)} ab: ${mode.padEnd(8)} ${rates(outcomes)}`)
  }
}

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
const costTrials = Math.max(1, Math.round(TRIALS / 10))
console.log(
  `Engine time per identical PR at box ${BOX} (${costTrials} PRs; start-up ${STARTUP_MS / 1000} s per launch):`,
)
for (const mode of MODES) {
  console.log(
    `  ab: ${mode.padEnd(8)} seed cell: ${engineTime([[SEED_CELL]], mode, costTrials)}; demo matrix (${demo.targets.length} targets, ${demo.cells.length} cells): ${engineTime(demoTargets, mode, costTrials)}`,
  )
}
