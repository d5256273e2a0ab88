/**
 * The results file, `llm-bench-gate/results@1`: one run's cells with their measurements and verdicts.
 * Its keys and their meanings are fixed; later releases may add fields, never rename or drop one.
 * Shared by bench, store, compare and report.
 */
import type { CellAb } from './ab-record.js'
import type { CellHost } from './host.js'
import type { MetricsBlock, RoundResult } from './measurements.js'
import type { GateStat, GatedMetric } from './metrics.js'
import type { CellQuality } from './quality.js'
import type { CellWorkload } from './workload.js'

export type { AbArm, AbLaunch, CellAb } from './ab-record.js'

export const RESULTS_SCHEMA = 'llm-bench-gate/results@1'

export const CELL_STATUSES = ['ok', 'error'] as const
export type CellStatus = (typeof CELL_STATUSES)[number]

export const CELL_VERDICTS = ['pass', 'improvement', 'regression', 'inconclusive', 'new', 'missing', 'error'] as const
export type CellVerdictStatus = (typeof CELL_VERDICTS)[number]

export const RUN_VERDICTS = ['pass', 'regression', 'inconclusive', 'error'] as const
export type RunVerdict = (typeof RUN_VERDICTS)[number]

export const METRIC_VERDICTS = ['pass', 'improvement', 'regression', 'inconclusive'] as const

/**
 * What would decide an inconclusive metric: more warm rounds of this cell; a quieter machine (the spread between
 * launches alone is too wide for the limit); more default-branch runs (the reference alone is too uncertain); the
 * requested workload (a flagged cell measured something else than the baseline); or, in a same-box A/B against
 * the base commit, more launches of each arm (`moreLaunches`).
 */
export type Undecided = 'rounds' | 'quieter-box' | 'baseline' | 'workload' | 'launches'

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
}

export interface TargetInfo {
  /** Engine version string (`/version`, `/get_server_info`, `/props`). */
  version?: string
  /** Launch command as run, port filled. */
  launch?: string
  /** Selected server facts (model path, slots, spec-decode config). */
  server?: Record<string, unknown>
  /** Last lines of the engine log when the target failed. */
  logTail?: string
  /** The container a `container:` target ran in: runtime, image tag and, where the runtime knows it, the digest. */
  container?: { runtime: string; image: string; digest?: string }
}

export interface SpecDecodeStats {
  /** Accepted draft tokens / drafted tokens, as a fraction. */
  acceptanceRate?: number
  /** Mean tokens emitted per verify step, including the bonus token. */
  acceptanceLength?: number
  draftTokens?: number
  acceptedTokens?: number
  source: string
}

export interface CellResult {
  id: string
  target: string
  scenario: string
  engine: string
  quant: string | null
  model: string | null
  status: CellStatus
  error: string | null
  flags: string[]
  workload: CellWorkload
  metrics: MetricsBlock | null
  rounds: RoundResult[]
  info: TargetInfo
  specDecode?: SpecDecodeStats
  /** Output quality figures: the target's probe, agreement with the baseline's greedy outputs, degenerate output (absent with `quality: false`). */
  quality?: CellQuality
  /** The host before launch, the environment fingerprint, rounds re-measured after a GPU slowdown. */
  host?: CellHost
  /** Set when another benchmark tool measured the cell (`llm-bench-gate ingest`, `engine: external`). */
  ingested?: IngestedSource
  /**
   * Seconds from spawning the target's launch (a container's `run`, which never pulls) to the engine's first
   * answer: the health endpoint ready and the smoke request answered. The target's first launch, on each of its
   * cells; absent for a `url:` target (nothing launched) and for one that never got ready.
   */
  startup_s?: number
  /**
   * Seconds a `container:` target's runtime took to pull the image before that launch, when it was not present
   * locally; not part of `startup_s`. Absent when no pull happened.
   */
  image_pull_s?: number
  /** The same-box A/B against the PR's base commit, when one was wanted (docs/same-box.md); never stored. */
  ab?: CellAb
  /**
   * How the PR's matrix file loosens this cell's gate against the base commit's definition of its target
   * (`raises decode tok/s's limit 5% → 50%`); absent when it does not, or when the base's was not read.
   */
  loosened?: string[]
  verdict: CellVerdict
}

/** A cell with nothing to be compared with: no baseline cell, or no baseline at all; `note` says which. */
export function newVerdict(note: string): CellVerdict {
  return { status: 'new', metrics: {}, note }
}

/** The verdict a cell carries until a baseline judges it, and keeps in a run that only measures (or an ingested file). */
export function notComparedVerdict(): CellVerdict {
  return newVerdict('not compared with a baseline')
}

/** Which tool and files measured an ingested cell, and what of our definitions its records could not give. */
export interface IngestedSource {
  /** The `format` the records were read as (`vllm`). */
  tool: string
  files: string[]
  /** Each figure the tool does not report or defines differently, and a cell with one round (the noise floor stands in). */
  unmapped: string[]
}

export interface RunMeta {
  sha: string
  ref: string
  event: string
  runUrl: string
  startedAt: string
  finishedAt?: string
  hardware: string
  repository?: string
  config?: string
  /**
   * What the run did once `auto` was resolved (`compare`, `update-baseline`, `run`, `merge`); `merge` reads a shard's
   * to tell whether that shard could have run a same-box A/B. Absent in files of earlier releases.
   */
  mode?: string
  shard?: string
  /** `mode: merge`: how many shards the split had and which of them sent no results file. */
  shards?: ShardTally
  /** What `select: changed` selected and why, or why every target ran. */
  selection?: string
  tool: { name: 'llm-bench-gate'; version: string }
}

export interface ShardTally {
  count: number
  /** 1-based indices, ascending. */
  missing: number[]
}

export interface ResultsFile {
  schema: typeof RESULTS_SCHEMA
  run: RunMeta
  cells: CellResult[]
  /** Run verdict and counts, filled after comparison. */
  summary?: {
    verdict: RunVerdict
    /** Regressed cells that fail the gate (accepted ones not counted). */
    regressions: number
    counts: Partial<Record<CellVerdictStatus, number>>
    baseline?: BaselineRef
    /** Regressed cells a maintainer accepted with the PR label `benchmark-accept`. */
    accepted?: { cells: number; by?: string }
  }
}

export interface BaselineRef {
  sha: string
  hardware: string
  source: string
  runUrl?: string
  date?: string
  /** Number of history entries the comparison used. */
  samples?: number
}

/**
 * One default-branch run in `<hardware>/history.json`: per cell, per gated metric key, steady value and per-round
 * samples. A launch figure (`startup_s`) is a key like the others, its `rounds` empty; entries before it lack it.
 */
export interface HistoryEntry {
  sha: string
  date: string
  runUrl: string
  cells: Record<string, Record<string, MetricSamples>>
  /** Per cell, the digest of the workload it measured (core/workload.ts); absent in entries written before it was kept. */
  workloads?: Record<string, string>
}

export interface MetricSamples {
  steady: number
  rounds: number[]
}

export const HISTORY_SCHEMA = 'llm-bench-gate/history@1'

export interface HistoryFile {
  schema: typeof HISTORY_SCHEMA
  hardware: string
  /** Newest last; bounded. */
  entries: HistoryEntry[]
}
