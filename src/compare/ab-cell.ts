/**
 * The A/B verdict on a cell (pure): its launches of both arms in order (ab.ts) → one verdict per gated metric both
 * arms measured, and the cell's status by the rule judge.ts uses (its worst metric; undecided when a gated metric
 * is missing from a launch or a launch is flagged). A relative metric's value per launch is its steady figure and
 * its standard error the spread of its steady warm rounds; a share (failed requests) is judged against its ceiling
 * on the arms' mean shares; goodput like a relative metric whose limit is its points (compare/metric.ts). A failed launch, or launches that are not base/PR pairs, make the verdict `error`,
 * naming the launch: a base arm that did not run must never read as a pass.
 */
import { GATED_METRICS, isCeiling, isDrop, metricLabel, readCellMetric } from '../core/metrics.js'
import type { ComparedMetric, DropMetric, GateStat, GatedMetric, RelativeMetric } from '../core/metrics.js'
import type { GateConfig, GateMetricConfig } from '../core/plan.js'
import type { CellResult, CellVerdict, MetricVerdict } from '../core/results.js'
import { mean } from '../core/stats.js'
import { formatPercent, formatPoints } from '../core/format.js'
import { abMetric, abOrder, pairedVerdict, type Arm } from './ab.js'
import { pairedRoundVariance, pairedRounds } from './paired-rounds.js'
import { factorConfig, splitDecode } from './spec-split.js'
import { steadyRounds } from './baseline.js'
import { cellStatus, gatedStat, measures } from './judge.js'
import { dropConfig, judgeCeiling } from './metric.js'
import { judgeFromZeroShare, type SloSide } from './slo-reach.js'
import { demoteSpeeds, flagNote, pastTwiceTheLimit } from './rules.js'
import { NOISE_FLOOR } from './noise.js'

export interface AbLaunch {
  arm: Arm
  cell: CellResult
}

export interface AbOptions {
  /** Launch-to-launch spread assumed, as a fraction (`noise-floor`; default 1.5 %). */
  noiseFloor?: number
  /**
   * The PR cell's verdict against the stored baseline: where main's history measured a metric's launch-to-launch
   * spread (`launchSpread`) above the floor, that spread is what the A/B expects of its launches instead.
   */
  stored?: CellVerdict
  /** No pair may follow these launches: an undecided loss past twice the limit is a regression (ab.ts). */
  final?: boolean
}

/** The A/B verdict on a cell from its launches in order: every gated metric both arms measured. */
export function abCellVerdict(launches: readonly AbLaunch[], gate: GateConfig, options: AbOptions = {}): CellVerdict {
  const problem = launchProblem(launches)
  if (problem) return { status: 'error', metrics: {}, note: problem }
  const metrics: CellVerdict['metrics'] = {}
  const notes: string[] = []
  const undecided: string[] = []
  for (const metric of GATED_METRICS) {
    const stat = gatedStat(gate, metric)
    if (stat === undefined || !measures(launches[0].cell, metric)) continue
    const spread = launchSpreadOf(options, metric)
    const judged = abGated(launches, gate, metric, stat, { noiseFloor: spread, final: options.final })
    if ('status' in judged) metrics[metric] = withSpreadSaid(judged, spread, options.noiseFloor ?? NOISE_FLOOR)
    else (judged.unknown ? undecided : notes).push(judged.note)
  }
  // Speculative decoding: decode's factors judged by the same A/B, acceptance on the same prompts (spec-split.ts).
  if (metrics.decode && gate.decode) {
    const config = factorConfig(gate.decode)
    metrics.decode = splitDecode(metrics.decode, (f) =>
      abFactor(launches, f, config, { noiseFloor: launchSpreadOf(options, 'decode', f), final: options.final }),
    )
  }
  const flags = [...new Set(launches.flatMap((l) => l.cell.flags))]
  // A flagged launch did not measure the requested workload: its speed figures decide nothing (rules.ts).
  if (flags.length) {
    undecided.push(flagNote(flags))
    demoteSpeeds(metrics)
  }
  if (!Object.keys(metrics).length) undecided.push('no gated metric measured by both arms')
  const note = [...undecided, ...notes].join('; ')
  const verdict: CellVerdict = { status: cellStatus(metrics, [], undecided), metrics, note: note || undefined }
  if (undecided.length) verdict.undecided = undecided
  return verdict
}

/**
 * The launch-to-launch spread the A/B expects of a metric (of one of decode's factors, with `factor`): the floor, or
 * main's measured spread where larger. A box whose launches settle in two regimes (vLLM #39903) shows it in main's
 * runs long before an A/B of two pairs could: two PR launches that both landed in the slow regime read as a loss
 * against a floor of 1.5 %, and as the noise they are against the spread main measured. It stands where the floor
 * would, at the floor's weight of two pairs (sequential.ts PRIOR_FREEDOM): a dozen runs of a box with a slow regime
 * one launch in seven often hold one slow run or none, too few to trust the spread they show any further.
 */
export function launchSpreadOf(options: AbOptions, metric: GatedMetric, factor?: GatedMetric): number {
  const floor = options.noiseFloor ?? NOISE_FLOOR
  const stored = options.stored?.metrics[metric]
  const measured = factor ? stored?.factors?.find((f) => f.metric === factor)?.launchSpread : stored?.launchSpread
  return Math.max(floor, measured ?? 0)
}

/** A verdict whose launches were expected to vary as main's runs measured, above the floor, saying so. */
function withSpreadSaid(v: MetricVerdict, spread: number, floor: number): MetricVerdict {
  if (spread <= floor) return v
  return { ...v, reason: `${v.reason}; launches expected to vary ±${formatPercent(spread)}, as main's runs measured` }
}

/**
 * One of decode's factors over the launches: acceptance paired round by round on the same prompts where every pair of
 * launches sent them (paired-rounds.ts), else, like step time, from each launch's figure under the launch noise.
 */
function abFactor(
  launches: readonly AbLaunch[],
  factor: RelativeMetric,
  config: GateMetricConfig,
  options: { noiseFloor: number; final?: boolean },
): MetricVerdict | undefined {
  const values = launches.map((l) => readCellMetric(l.cell, factor, 'mean'))
  if (values.some((v) => !(v !== undefined && v > 0))) return undefined
  if (factor === 'accept-length') {
    const paired = pairedRounds(cellPairs(launches), factor, 'A/B on this box')
    if (paired) return pairedVerdict({ metric: factor, config, pairs: paired, final: options.final })
  }
  return abLaunchMetric(launches, factor, 'mean', values as number[], { config, ...options })
}

/**
 * A relative metric over the launches, each launch's figure with its standard error; where a pair's rounds sent the
 * same prompts, the pair's error from its rounds paired (paired-rounds.ts) instead of the two launches' own.
 */
function abLaunchMetric(
  launches: readonly AbLaunch[],
  metric: ComparedMetric,
  stat: GateStat,
  values: readonly number[],
  options: { config: GateMetricConfig; noiseFloor: number; final?: boolean },
): MetricVerdict {
  const ab = launches.map((l, i) => ({ arm: l.arm, value: values[i], se: launchSe(l.cell, metric, stat, values[i]) }))
  const pairVariances = cellPairs(launches).map(([base, pr]) => pairedRoundVariance(base, pr, metric, stat))
  return abMetric({ metric, launches: ab, pairVariances, ...options })
}

/** Launches two by two as (base, PR) cells. */
function cellPairs(launches: readonly AbLaunch[]): [CellResult, CellResult][] {
  const pairs: [CellResult, CellResult][] = []
  for (let j = 0; j + 1 < launches.length; j += 2) {
    const [a, b] = [launches[j], launches[j + 1]]
    pairs.push(a.arm === 'base' ? [a.cell, b.cell] : [b.cell, a.cell])
  }
  return pairs
}

/** Why the launches cannot be judged: a failed launch (named by arm and number) or an order that is not paired. */
function launchProblem(launches: readonly AbLaunch[]): string | undefined {
  const seen: Record<Arm, number> = { base: 0, pr: 0 }
  for (const { arm, cell } of launches) {
    const name = `${arm === 'base' ? 'base' : 'PR'} launch ${++seen[arm]}`
    if (cell.status === 'error') return `${name} failed: ${cell.error ?? 'the cell could not be measured'}`
    if (!cell.metrics) return `${name} failed: it measured nothing`
  }
  for (let j = 0; j < launches.length; j += 2)
    if (launches[j].arm === launches[j + 1]?.arm || j + 1 === launches.length)
      return `A/B launches ${j + 1} and ${j + 2} are not one base and one PR launch (expected ${abOrder(Math.max(1, launches.length >> 1)).join(' ')})`
  return launches.length ? undefined : 'A/B: no launches'
}

/** Why a gated metric was not judged; `unknown` when it should have been (the cell is then undecided). */
interface NotJudged {
  note: string
  unknown?: true
}

/** One gated metric over the launches: a verdict, or why there is none. */
function abGated(
  launches: readonly AbLaunch[],
  gate: GateConfig,
  metric: GatedMetric,
  stat: GateStat,
  options: { noiseFloor: number; final?: boolean },
): MetricVerdict | NotJudged {
  const label = metricLabel(metric, stat)
  const values = launches.map((l) => readCellMetric(l.cell, metric, stat))
  const arm = (a: Arm) => values.filter((_, i) => launches[i].arm === a) as number[]
  if (arm('base').every((v) => v === undefined)) return { note: `${label}: the base arm did not measure it` }
  if (values.some((v) => v === undefined))
    return { note: `${label}: not measured by every launch, cannot compare`, unknown: true }
  if (isCeiling(metric))
    return judgeCeiling({ metric, config: gate[metric]!, current: mean(arm('pr')), baseline: mean(arm('base')) })
  const config = isDrop(metric) ? dropConfig(gate[metric]!) : gate[metric]!
  if (values.some((v) => !(v! > 0))) {
    if (isDrop(metric)) return abZeroShare(metric, config, arm('base'), arm('pr'), prSide(launches))
    return { note: `${label}: a launch measured no positive value, cannot compare`, unknown: true }
  }
  return abLaunchMetric(launches, metric, stat, values as number[], { config, ...options })
}

/** The PR arm's launches as the side an SLO no launch of either arm met is quoted from (slo-reach.ts). */
function prSide(launches: readonly AbLaunch[]): SloSide {
  const cells = launches.filter((l) => l.arm === 'pr').map((l) => l.cell)
  return { slo: launches[0].cell.workload?.slo, cells, other: 'on the base arm' }
}

/**
 * A share that some launch measured at 0 (no request met the SLO) has no log ratio: it is judged on the arms' means
 * in points, where only a drop past twice the limit fails whatever the noise (rules.ts), no drop passes, and a
 * smaller one needs launches that measure a share above 0. Both arms at 0: the SLO is out of reach (slo-reach.ts).
 */
function abZeroShare(
  metric: DropMetric,
  config: GateMetricConfig,
  base: number[],
  pr: number[],
  side: SloSide,
): MetricVerdict {
  const [before, after] = [mean(base), mean(pr)]
  if (!(before > 0)) return judgeFromZeroShare(metric, config, after, side)
  const limit = config.minDelta ?? 0
  const worse = before - after
  const said = `${metricLabel(metric, 'mean')} ${formatPercent(before)} → ${formatPercent(after)} (A/B on this box, arms' means; limit ${formatPoints(limit)} points)`
  const status = pastTwiceTheLimit(worse, limit) ? 'regression' : worse <= 0 ? 'pass' : 'inconclusive'
  const why = {
    regression: ': more than twice the limit',
    pass: '',
    inconclusive: ': a launch measured 0, more launches would decide',
  }[status]
  const verdict: MetricVerdict = {
    status,
    metric,
    stat: 'mean',
    current: after,
    baseline: before,
    delta: (after - before) / before,
    reason: `${said}${why}`,
  }
  if (status === 'inconclusive') verdict.needs = 'launches'
  return verdict
}

/** A launch's relative standard error: the sd of its steady rounds / √k / its value; 0 with one round. */
export function launchSe(cell: CellResult, metric: GatedMetric, stat: GateStat, value: number): number {
  const rounds = steadyRounds(cell, metric, stat)
  const k = rounds.length
  if (k < 2) return 0
  const m = mean(rounds)
  return Math.sqrt(rounds.reduce((sum, r) => sum + (r - m) ** 2, 0) / (k - 1) / k) / value
}
