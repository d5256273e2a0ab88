/**
 * The results file, `llm-bench-gate/results@1`: one run's cells with their measurements and verdicts.
 * Its keys and their meanings are fixed; later releases may add fields, never rename or drop one.
 * Shared by bench, store, compare and report.
 */
import type { CellAb } from './ab-record.js'
import type { BisectRecord } from './bisect-record.js'
import type { CellHost } from './host.js'
import type { MetricsBlock, RoundResult } from './measurements.js'
import type { CellQuality } from './quality.js'
import type { CellRoofline } from './roofline.js'
import type { CellWorkload } from './workload.js'
import type { CellVerdict, CellVerdictStatus, RunVerdict } from './verdicts.js'

export type { AbArm, AbLaunch, CellAb } from './ab-record.js'
export * from './verdicts.js'

export const RESULTS_SCHEMA = 'llm-bench-gate/results@1'

export const CELL_STATUSES = ['ok', 'error'] as const
export type CellStatus = (typeof CELL_STATUSES)[number]

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
  /**
   * Decode as a share of the box's memory-bandwidth ceiling (core/roofline.ts), or why a cell whose box or model
   * was known has none; absent when neither was.
   */
  roofline?: CellRoofline
  /** The same-box A/B against the PR's base commit, when one was wanted (docs/same-box.md); never stored. */
  ab?: CellAb
  /**
   * How the PR's matrix file loosens this cell's gate against the base commit's definition of its target
   * (`raises decode tok/s's limit 5% → 50%`); absent when it does not, or when the base's was not read.
   */
  loosened?: string[]
  /**
   * Whether the engine's prefix cache was emptied before the cell's cold round, so no earlier cell (or run, on a
   * `url:` server) warmed it; absent where nothing was measured here (an `engine: external` or ingested cell).
   */
  prefixCacheReset?: PrefixCacheReset
  /** The steady rounds' per-request record beside the results (`requests.jsonl`, `trace.json`); absent when none was written. */
  requestFiles?: RequestFiles
  /**
   * The first measurement and its confirmation re-measurements together, as the verdict pooled them
   * (compare/confirm.ts): the figures no gate compares, over the same rounds. Absent without a re-measurement.
   */
  pooled?: PooledMeasurements
  verdict: CellVerdict
}

/** `pooled`: the steady state over the steady rounds of every measurement of the cell. */
export interface PooledMeasurements {
  /** Measurements pooled: the first and each re-measurement. */
  measurements: number
  /** Steady rounds over them all. */
  rounds: number
  metrics: MetricsBlock
}

/** `prefixCacheReset`: done (`via` the endpoint), or not, with the reason (no endpoint, the status it answered). */
export interface PrefixCacheReset {
  reset: boolean
  /** The request that emptied it (`POST /reset_prefix_cache`). */
  via?: string
  /** Why it was not reset (`trtllm offers no reset`, `vllm answered 404 to POST /reset_prefix_cache …`). */
  reason?: string
}

/** `requestFiles`: where a cell's request record lies, relative to the results folder, and what it holds. */
export interface RequestFiles {
  /** Folder under the results folder holding `requests.jsonl` and `trace.json` (`requests/sim/chat`). */
  dir: string
  /** Requests written, over every steady round. */
  requests: number
  /** Requests of those rounds left out by the per-round and per-file caps. */
  omitted?: number
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
    /** Of `regressions`, the cells that crept past a limit on the default branch (`verdict.creep`). */
    crept?: number
  }
  /** `mode: bisect`, or a default-branch run's `bisect: auto`: one bisection per target (core/bisect.ts). */
  bisect?: BisectRecord[]
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
  /** What a bisection this run started named (`bisect: auto`): the dashboard marks each on its cells' trends. */
  culprits?: HistoryCulprit[]
}

/** A commit a bisection named, as the history keeps it. */
export interface HistoryCulprit {
  /** The culprit, or each step of several. */
  sha: string
  /** The cells it is named for. */
  cells: string[]
  /** `culprit` (one commit alone past the limit) or `step` (one of several). */
  kind: 'culprit' | 'step'
  /** Its pull request, where GitHub named one. */
  pull?: { number: number; url: string }
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
