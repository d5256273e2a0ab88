/**
 * Planning a same-box A/B before it runs (pure), for `llm-bench-gate validate`: per target, the launches per arm
 * the sequential test (sequential.ts) is expected to take to decide each gated limit, at the launch noise the
 * target's `noise-floor` states, and whether `ab-max-launches` can decide it at all.
 *
 * Expected launches come from running the shipped test on seeded normal pairs of sd √2·f (two launches' spread at
 * the floor f, the rounds' own noise left out), under no change and under a loss of twice the limit, pair after
 * pair as the action runs it: deterministic, and the same rule that will decide. A limit the largest A/B cannot
 * decide is one whose smallest detectable change at `ab-max-launches` pairs, (z₀.₉₉ + z₀.₉₅)·σ/√n, is above the
 * loss of twice the limit that the test must catch: such a cell ends inconclusive more often than the guarantees
 * allow.
 */
import { mulberry32, normal } from '../core/random.js'
import { GATED_METRICS, METRICS, isRelative, metricLabel } from '../core/metrics.js'
import { formatPercent } from '../core/format.js'
import type { GateConfig, GateMetricConfig, TargetPlan } from '../core/plan.js'
import type { CellResult } from '../core/results.js'
import { DETECT_Z, detectable, sequentialTest, twiceTheLimitLogs } from './sequential.js'

/** Seeded trials per hypothesis: the mean launches are then known to about ±0.02. */
const TRIALS = 2000

export interface AbLimitPlan {
  metric: string
  limit: number
  /** Expected launches per arm under no change and under a loss of twice the limit. */
  unchanged: number
  loss: number
  /** The smallest loss (relative) `ab-max-launches` pairs can detect at this noise. */
  mdeAtMost: number
  /** Whether that is within twice the limit. */
  decidable: boolean
}

/** Expected launches per arm to decide a loss `loss` (log scale) at pair sd `sd`, with the true mean `mu`. */
function expectedLaunches(sd: number, loss: number, mu: number, least: number, most: number): number {
  const random = mulberry32(0x5eed)
  let total = 0
  for (let t = 0; t < TRIALS; t++) {
    const worse: number[] = []
    let n = least
    for (; ; n++) {
      while (worse.length < n) worse.push(mu + sd * normal(random))
      const test = sequentialTest({ worse, loss, gain: loss, expectedVariance: sd * sd })
      if (test.call || n + 1 > most) break
    }
    total += n
  }
  return total / TRIALS
}

/** Each relative gated metric of the target with its expected launches, when the target runs an A/B. */
export function abLimitPlans(target: TargetPlan): AbLimitPlan[] {
  const { ab, noiseFloor } = target.settings
  if (ab.mode === 'off') return []
  const sd = Math.SQRT2 * noiseFloor
  const plans: AbLimitPlan[] = []
  for (const metric of GATED_METRICS) {
    if (!isRelative(metric)) continue
    const config = target.gate[metric] as GateMetricConfig | undefined
    if (!config || !(config.maxRegression > 0)) continue
    const { loss } = twiceTheLimitLogs(config.maxRegression, METRICS[metric].higherIsBetter)
    const mde = detectable(sd, ab.maxLaunches)
    plans.push({
      metric: metricLabel(metric, config.stat),
      limit: config.maxRegression,
      unchanged: expectedLaunches(sd, loss, 0, ab.launches, ab.maxLaunches),
      loss: expectedLaunches(sd, loss, loss, ab.launches, ab.maxLaunches),
      mdeAtMost: -Math.expm1(-mde),
      decidable: mde <= loss,
    })
  }
  return plans
}

/** The planning lines `validate` prints under a target (none when it runs no A/B). */
export function formatAbPlan(target: TargetPlan): string[] {
  const plans = abLimitPlans(target)
  if (!plans.length) return []
  const { ab, noiseFloor } = target.settings
  const head = `  a/b     at the noise floor ${formatPercent(noiseFloor)} a launch, each cell from ${ab.launches} to ${ab.maxLaunches} launches per arm:`
  const lines = plans.map(
    (p) =>
      `    ${p.metric} ${formatPercent(p.limit)}: ${p.unchanged.toFixed(1)} launches per arm expected unchanged, ${p.loss.toFixed(1)} at a ${formatPercent(2 * p.limit)} loss (engine time: twice that many launches of the target); could detect ≥ ${formatPercent(p.mdeAtMost)} at ${ab.maxLaunches}`,
  )
  const warnings = plans
    .filter((p) => !p.decidable)
    .map(
      (p) =>
        `    warning: ab-max-launches ${ab.maxLaunches} cannot decide ${p.metric}'s ${formatPercent(p.limit)} limit at this noise (it could detect ≥ ${formatPercent(p.mdeAtMost)}, the test must catch ${formatPercent(2 * p.limit)}); raise ab-max-launches or the limit, or lower the launch noise`,
    )
  return [head, ...lines, ...warnings]
}

/**
 * Before an A/B runs: for each gated limit of the judged cell whose launch spread main's runs measured above what
 * `ab-max-launches` pairs can decide (the smallest detectable change at that many pairs of sd √2·σ past the loss
 * of twice the limit), a line naming the spread and the launches per arm that would decide: n = ⌈(z·√2·σ / 2L)²⌉,
 * z = z₀.₉₉ + z₀.₉₅. Such a cell may end inconclusive; the run log says why before the launches are spent.
 */
export function abSpreadWarnings(cell: CellResult, gate: GateConfig, maxLaunches: number): string[] {
  const lines: string[] = []
  for (const metric of GATED_METRICS) {
    const spread = cell.verdict.metrics[metric]?.launchSpread
    const config = gate[metric] as GateMetricConfig | undefined
    if (!isRelative(metric) || spread === undefined || !config || !(config.maxRegression > 0)) continue
    const sd = Math.SQRT2 * spread
    const { loss } = twiceTheLimitLogs(config.maxRegression, METRICS[metric].higherIsBetter)
    if (detectable(sd, maxLaunches) <= loss) continue
    const needed = Math.ceil(((DETECT_Z * sd) / loss) ** 2)
    lines.push(
      `${cell.id}: main's runs measured ${metricLabel(metric, config.stat)} varying ±${formatPercent(spread)} from launch to launch; ab-max-launches ${maxLaunches} cannot decide its ${formatPercent(config.maxRegression)} limit at that noise, about ${needed} launches per arm would`,
    )
  }
  return lines
}
