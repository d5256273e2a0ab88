/**
 * Bisection figures: `npx tsx bench/bisect.ts [--trials N] [--commits N] [--launch-cv P] [--startup S]
 * [--regime-share P] [--show N]`.
 *
 * Runs the shipped bisection rule (`bisectCommits`, compare/bisect-rule.ts) over a range of `--commits` (default 12)
 * first-parent commits, the good end first, each commit's level a speed factor of the engine, on the simulator's
 * engine model in virtual time (src/sim, through bench/virtual-launch.ts). Each probe is the same-box paired A/B
 * `mode: bisect` runs (run/bisect.ts): the probed commit's arm against the other's in ABBA order, from 2 to 6
 * launches per arm, another pair while `abUndecided` says a cell asks for launches (nothing stored: the launches are
 * expected to vary as the noise floor says), the probe's verdict `abCellVerdict(…, { final: true })` at noise floor
 * 1.5 %, its sign past when the cell regressed, within when it passed or improved, else undecided. Every launch draws
 * its own speed (launch-cv `--launch-cv`, default 0.03; with `--regime-share`, that share of launches 10 % slower,
 * vLLM #39903) on a box of factor 1; both launches of a pair get the same seed (the same prompts), each pair its
 * own. The gate is the built-in one (decode 5 %, TTFT 10 % and 50 ms, failed requests 1 %) on the seed cell
 * (1,024/128 at concurrency 8, vllm-qwen36-27b-fp8, rounds 3, discard 1); `bisect-budget` is its default, 4 h, each
 * launch taking its measuring time plus `--startup` seconds (default 0).
 *
 * Printed, per scenario, over `--trials` ranges (default 500): the share of bisections whose answer is right (one
 * step: that commit the culprit; two steps: both named; a creep of four commits each −2.5 % over a range of five: the
 * outcome `steps` naming the four, no culprit; no change: `not-reproduced`), that name a culprit that is not a
 * step (or any culprit, for the creep and no change), and the other outcomes by kind; the mean probes, launches of
 * both arms and engine time per bisection, that time again with a start-up of 120 s a launch (a 27B model's load on a
 * DGX Spark); and for one step the halving's bound, ⌈log2(n−1)⌉ commits besides the ends (git-bisect(1) over the n−1
 * commits after the good one), plus the probe a culprit costs (its step; what is left is measured only when the
 * step leaves a loss). `--show N` prints the probes of the first N trials per scenario that were not right.
 */
import { parseArgs } from 'node:util'
import { abCellVerdict, abUndecided, bisectCommits, type BisectAnswer, type Comparison } from '../src/compare/index.js'
import { NOISE_FLOOR } from '../src/compare/noise.js'
import type { ProbeSign } from '../src/core/bisect-record.js'
import type { CellVerdict } from '../src/core/verdicts.js'
import { createRng, type Rng } from '../src/sim/rng.js'
import { drawSpeed, GATE, LAUNCH_CV, SEED_CELL, seeds, virtualAb } from './virtual-launch.js'

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '500' },
    commits: { type: 'string', default: '12' },
    'launch-cv': { type: 'string', default: String(LAUNCH_CV) },
    startup: { type: 'string', default: '0' },
    'regime-share': { type: 'string', default: '0' },
    show: { type: 'string', default: '0' },
  },
})
const TRIALS = Number(values.trials)
const COMMITS = Number(values.commits)
const STARTUP_MS = Number(values.startup) * 1000
const SHOW = Number(values.show)
const NOISE = { launchCv: Number(values['launch-cv']), regimeShare: Number(values['regime-share']), regimeFactor: 0.9 }
/** `ab-launches`, `ab-max-launches`, `bisect-budget`: the defaults. */
const [LAUNCHES, MAX_LAUNCHES, BUDGET_MS] = [2, 6, 4 * 3600_000]
/** A probe has no stored verdict (run/bisect.ts). */
const NOTHING_STORED: CellVerdict = { status: 'new', metrics: {} }
const LOADED_STARTUP_MS = 120_000

/** A range: each commit's speed level (the good end's 1 first) and the indices of the commits that changed it. */
interface Range {
  levels: number[]
  steps: number[]
}

interface Scenario {
  name: string
  range(rng: Rng): Range
  /** The right answer, given the commits' shas. */
  right(a: BisectAnswer, steps: string[]): boolean
}

/** `n` commits whose levels fall by `factor` at each of `at`. */
function range(n: number, at: number[], factor: number): Range {
  const levels = [1]
  for (let i = 1; i < n; i++) levels.push(levels[i - 1] * (at.includes(i) ? factor : 1))
  return { levels, steps: [...at].sort((a, b) => a - b) }
}

/** Distinct commits after the good end, uniform over 2..n (indices 1..n−1). */
function pick(rng: Rng, n: number, count: number): number[] {
  const at: number[] = []
  while (at.length < count) {
    const i = 1 + Math.floor(rng() * (n - 1))
    if (!at.includes(i)) at.push(i)
  }
  return at
}

const culpritIs = (a: BisectAnswer, steps: string[]) => a.outcome === 'culprit' && a.culprit === steps[0]
const names = (a: BisectAnswer, steps: string[]) =>
  a.steps?.length === steps.length && steps.every((s) => a.steps!.includes(s))
const SCENARIOS: Scenario[] = [
  { name: 'one step −12 %', range: (rng) => range(COMMITS, pick(rng, COMMITS, 1), 0.88), right: culpritIs },
  { name: 'one step −7 %', range: (rng) => range(COMMITS, pick(rng, COMMITS, 1), 0.93), right: culpritIs },
  {
    name: 'two steps −8 %',
    range: (rng) => range(COMMITS, pick(rng, COMMITS, 2), 0.92),
    right: (a, steps) => a.outcome === 'steps' && a.culprit === steps[0] && names(a, steps),
  },
  {
    name: 'creep 4 × −2.5 %',
    range: () => range(5, [1, 2, 3, 4], 0.975),
    right: (a, steps) => a.outcome === 'steps' && !a.culprit && names(a, steps),
  },
  { name: 'no change', range: () => range(COMMITS, [], 1), right: (a) => a.outcome === 'not-reproduced' },
]

/** One cell: its status decides the sign, as run/bisect.ts signs a probe. */
const signOf = (v: CellVerdict): ProbeSign =>
  v.status === 'regression' ? 'past' : v.status === 'pass' || v.status === 'improvement' ? 'within' : 'undecided'

interface Bisection {
  answer: BisectAnswer
  shas: string[]
  /** Launches of both arms, and their measuring time without start-up. */
  launches: number
  measuringMs: number
}

/** One bisection of a range, every probe a virtual A/B drawing its launches from `seed`. */
async function bisect(r: Range, seed: number): Promise<Bisection> {
  const draw = seeds(seed)
  const shas = r.levels.map((_, i) => (seed * 64 + i).toString(16).padStart(40, '0'))
  const at = new Map(shas.map((s, i) => [s, i]))
  let [launches, measuringMs, spentMs] = [0, 0, 0]
  const compare = async (sha: string, against: string): Promise<Comparison> => {
    const level = { pr: r.levels[at.get(sha)!], base: r.levels[at.get(against)!] }
    const ab = virtualAb({
      cells: [SEED_CELL],
      launches: LAUNCHES,
      maxLaunches: MAX_LAUNCHES,
      speed: (arm) => drawSpeed(draw, 1, NOISE) * level[arm],
      pairSeed: draw,
      undecided: (runs) => abUndecided({ id: SEED_CELL.id, verdict: NOTHING_STORED }, runs, GATE, NOISE_FLOOR),
      startupMs: STARTUP_MS,
      budgetLeftMs: BUDGET_MS - spentMs,
    })
    const engineMs = ab.runs.reduce((s, l) => s + l.engineMs, 0)
    ;[launches, measuringMs, spentMs] = [launches + ab.runs.length, measuringMs + ab.measuringMs, spentMs + engineMs]
    const probe = { launches: Math.floor(ab.runs.length / 2), engineMs }
    if (ab.stopped) return { ...probe, cells: {}, sign: 'undecided', reason: ab.stopped }
    const pairs = ab.runs.map((l) => ({ arm: l.arm, cell: l.cells!.get(SEED_CELL.id)! }))
    const verdict = abCellVerdict(pairs, GATE, { noiseFloor: NOISE_FLOOR, final: true })
    return { ...probe, cells: { [SEED_CELL.id]: verdict }, sign: signOf(verdict) }
  }
  const answer = await bisectCommits(shas, { compare, budgetLeftMs: () => BUDGET_MS - spentMs })
  return { answer, shas, launches, measuringMs }
}

/** What an answer that is not right is, for the table: a wrong culprit, or the outcome. */
function kindOf(a: BisectAnswer, steps: string[], creep: boolean): string {
  if (a.culprit && (creep || !steps.includes(a.culprit))) return 'wrong culprit'
  if (a.outcome === 'steps' && !a.culprit) return 'steps, no culprit'
  if (a.steps?.some((s) => !steps.includes(s))) return 'a step too many'
  if (a.culprit) return `${a.outcome}, ${a.steps!.length} of ${steps.length} steps`
  return a.outcome
}

/** The probes of a bisection, one line each: role, commits by index, sign, launches per arm, decode change. */
function trail(b: Bisection, r: Range): string {
  const i = (sha: string) => b.shas.indexOf(sha)
  const probes = b.answer.probes.map((p) => {
    const decode = p.cells[SEED_CELL.id]?.metrics.decode?.delta
    const change = decode === undefined || decode === null ? '' : ` ${(100 * decode).toFixed(1)} %`
    return `${p.role} ${i(p.sha)}/${i(p.against)} ${p.sign}${change} (${p.launches})`
  })
  const named = b.answer.culprit ? ` culprit ${i(b.answer.culprit)}` : ''
  return `  steps at ${r.steps.join(', ')} → ${b.answer.outcome}${named} [${(b.answer.steps ?? []).map(i).join(', ')}]: ${probes.join('; ')}`
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const minutes = (ms: number) => `${(ms / 60_000).toFixed(0)} min`
const bound = Math.ceil(Math.log2(COMMITS - 1)) + 1
const noise = NOISE.regimeShare
  ? `, launch regimes: ${pct(NOISE.regimeShare)} of launches ${pct(1 - NOISE.regimeFactor)} slower`
  : ''
console.log(
  `Bisection figures: ${TRIALS} ranges per scenario of ${COMMITS} commits (the creep's: 5), launch-cv ${pct(NOISE.launchCv)}${noise}, box 1, probes ABBA from ${LAUNCHES} to ${MAX_LAUNCHES} launches per arm, noise floor ${pct(NOISE_FLOOR)}, decode limit 5 %, bisect-budget ${BUDGET_MS / 3600_000} h, start-up ${STARTUP_MS / 1000} s a launch`,
)
console.log(
  `| scenario | trials | right | wrong culprit | other | probes (besides the ends) | bound besides the ends | launches | engine time | at 120 s start-up |`,
)
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for (const [s, scenario] of SCENARIOS.entries()) {
  const rng = createRng(1000 + s)
  const kinds = new Map<string, number>()
  let [right, probes, launches, engineMs, loadedMs, shown] = [0, 0, 0, 0, 0, 0]
  for (let t = 0; t < TRIALS; t++) {
    const r = scenario.range(rng)
    const b = await bisect(r, 7919 * (t + 1) + 104729 * s)
    const steps = r.steps.map((i) => b.shas[i])
    probes += b.answer.probes.length
    launches += b.launches
    engineMs += b.answer.engineMs
    loadedMs += b.measuringMs + b.launches * LOADED_STARTUP_MS
    if (scenario.right(b.answer, steps)) right++
    else {
      const kind = kindOf(b.answer, steps, scenario.name.startsWith('creep'))
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
      if (shown++ < SHOW) console.error(`${scenario.name}: ${trail(b, r)}`)
    }
  }
  const wrong = kinds.get('wrong culprit') ?? 0
  kinds.delete('wrong culprit')
  const other = [...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${pct(n / TRIALS)}`)
  const mean = (x: number) => x / TRIALS
  console.log(
    `| ${scenario.name} | ${TRIALS} | ${pct(right / TRIALS)} | ${pct(wrong / TRIALS)} | ${other.join(', ') || '—'} | ${mean(probes).toFixed(2)} (${mean(probes - TRIALS).toFixed(2)}) | ${scenario.name.startsWith('one') ? `⌈log2(${COMMITS - 1})⌉ + 1 = ${bound}` : ''} | ${mean(launches).toFixed(1)} | ${minutes(mean(engineMs))} | ${minutes(mean(loadedMs))} |`,
  )
}
