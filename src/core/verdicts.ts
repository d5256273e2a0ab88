/**
 * The verdicts of a results file (llm-bench-gate/results@1): a cell's, each gated metric's, the run's, and a
 * default-branch creep. Fixed like the rest of the file; re-exported by results.ts.
 */
import type { GateStat, GatedMetric } from './metrics.js'

export const CELL_VERDICTS = ['pass', 'improvement', 'regression', 'inconclusive', 'new', 'missing', 'error'] as const
export type CellVerdictStatus = (typeof CELL_VERDICTS)[number]

export const RUN_VERDICTS = ['pass', 'regression', 'inconclusive', 'error'] as const
export type RunVerdict = (typeof RUN_VERDICTS)[number]

export const METRIC_VERDICTS = ['pass', 'improvement', 'regression', 'inconclusive'] as const

/**
 * What would decide an inconclusive metric: more warm rounds of this cell; a quieter machine (the spread between
 * launches alone is too wide for the limit); more default-branch runs (the reference alone is too uncertain); the
 * requested workload (a flagged cell measured something else than the baseline); in a same-box A/B against
 * the base commit, more launches of each arm (`moreLaunches`); or a looser SLO (`slo`: goodput, whose SLO no request
 * of either side met, compare/slo-reach.ts).
 */
export type Undecided = 'rounds' | 'quieter-box' | 'baseline' | 'workload' | 'launches' | 'slo'

/** The reference was re-based at a level shift the default branch accepted. */
export interface Rebase {
  /** Commit of the first run at the new level. */
  sha: string
  /** Relative change of the level, (new − old) / old. */
  change: number
  /** Runs at the new level the reference is the median of. */
  runs: number
}

export interface MetricVerdict {
  status: (typeof METRIC_VERDICTS)[number]
  metric: GatedMetric
  /** The compared statistic (`mean` for round-level figures). */
  stat: GateStat
  current: number
  baseline: number
  /**
   * Signed relative change, (current - baseline) / baseline. Infinite for a share rising from a zero
   * baseline, which JSON writes as null.
   */
  delta: number | null
  /** Human-readable reason, e.g. `-12.3% > 5% and beyond noise (±1.8%)`. */
  reason: string
  /** Relative half-width of the noise band the verdict used (relative metrics). */
  band?: number
  /**
   * The effective limit the verdict held the change to, relative like `delta` (the stricter of max-regression and
   * min-delta ÷ the reference; a drop's points ÷ the reference): how far past it a regression is, |delta| ÷ limit,
   * ranks what a report lists first. Absent for a ceiling, a share from zero, and in files of earlier releases.
   */
  limit?: number
  /**
   * The smallest change for the worse (relative) these measurements detect 95 % of the time at 1 % false
   * regressions, at the noise they showed: (z₀.₉₉ + z₀.₉₅)·σ of the change (compare/sequential.ts).
   */
  mde?: number
  /**
   * Against a stored baseline only, where main's history measured it (ten default-branch runs in a level): the
   * launch-to-launch spread of this metric on this box, relative, odd launches included (compare/noise.ts). A
   * same-box A/B of the cell expects its launches to vary at least this much (compare/ab-cell.ts).
   */
  launchSpread?: number
  /** Inconclusive only: what would decide it. */
  needs?: Undecided
  /**
   * An A/B's inconclusive only: its launches lean toward a loss (the change is past the limit, the midpoint of the
   * sequential test's two hypotheses), so they do not contradict a regression the stored baseline found.
   */
  leansToLoss?: true
  /** With `needs: 'rounds'`: warm rounds more after which the band would be narrow enough to decide. */
  moreRounds?: number
  /**
   * With `needs: 'launches'` (a same-box A/B): launches to add to each arm, in the same alternating order, after
   * which the interval would be narrow enough to decide (capped; the reason says when more would be needed).
   */
  moreLaunches?: number
  /** Set when the reference is the level main moved to at a detected shift. */
  rebased?: Rebase
  /**
   * Decode only, where the engine drafted on both sides: the verdicts on its factors, acceptance length and step
   * time, under decode's limit (compare/spec-split.ts).
   */
  factors?: MetricVerdict[]
}

/** A metric's level on the default branch, worse than at the reference point by more than the limit and the noise. */
export interface CreepAlert {
  metric: GatedMetric
  /** Relative change of the level now against the level at the reference point (signed, as a verdict's delta). */
  change: number
  /** Relative half-width of the change's noise band. */
  band: number
  /** The newest run at least as good as the reference level: the span starts after it. */
  since: string
  /** Default-branch runs (merges) after `since`, this one included. */
  merges: number
  /** Every merge of the span within the limit against the run before it. */
  eachWithin: boolean
  /** `decode tok/s −8.8% over 4 merges since abc1234, each within the limit (limit 5%, noise ±3.7%)`. */
  reason: string
}

export interface CellVerdict {
  status: CellVerdictStatus
  metrics: Partial<Record<GatedMetric, MetricVerdict>>
  /** Why the cell got its status (first-run note, noise, flags…). */
  note?: string
  /** Why the cell fails apart from its metrics (an achieved-length miss the baseline did not have). */
  failures?: string[]
  /** Why the cell cannot be decided apart from its metrics (a flag the baseline had too, a metric not measured). */
  undecided?: string[]
  /** How many confirmation re-measurements ran. */
  confirmed?: number
  /**
   * A default-branch run only: gated metrics whose level crept past the limit over several merges, each of which
   * the per-run gate passed (compare/creep.ts). A creep fails the run as a regression does.
   */
  creep?: CreepAlert[]
  /** Baseline values of the report's headline figures, gated or not, in the statistic the report shows. */
  reference?: Partial<Record<GatedMetric, { stat: GateStat; value: number }>>
  /**
   * Not run on purpose (`select: changed`: none of the target's paths changed). Such a cell has the verdict
   * `missing` (not measured, neither passes nor fails the gate, never stored), so readers that do not know
   * this field still read it right; `reference` holds its baseline figures.
   */
  skipped?: 'unchanged'
  /** The baseline cell this one was judged against when the baseline lacks its own id (a rename in the same change). */
  comparedWith?: string
  /** Per compared metric, its smallest detectable change (MetricVerdict.mde). */
  mde?: Partial<Record<GatedMetric, number>>
  /** Engine counters that changed with the cell beyond their noise (`preemptions 0 → 37 per round`; compare/server-changes.ts). */
  serverChanges?: string[]
  /**
   * What disturbed the box during the rounds the verdict rests on, one entry per thing with the rounds it disturbed and
   * its worst round's figure (`rounds 2–5, at worst: stress (pid 123) used 98 % of a core during the round`;
   * host/disturbance.ts, compare/disturbed.ts). The status stands as the rules decided it; a pass with this is not a
   * clean pass.
   */
  disturbed?: string[]
}

/** A cell with nothing to be compared with: no baseline cell, or no baseline at all; `note` says which. */
export function newVerdict(note: string): CellVerdict {
  return { status: 'new', metrics: {}, note }
}

/** The verdict a cell carries until a baseline judges it, and keeps in a run that only measures (or an ingested file). */
export function notComparedVerdict(): CellVerdict {
  return newVerdict('not compared with a baseline')
}
