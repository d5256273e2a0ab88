/**
 * A cell's same-box A/B as the results file records it (part of `llm-bench-gate/results@1`, core/results.ts): both
 * arms' launches and the verdict the A/B replaced.
 */
import type { Fingerprint } from './host.js'
import type { MetricsBlock, RoundResult } from './measurements.js'
import type { CellStatus, CellVerdict } from './results.js'

export type AbArm = 'base' | 'pr'

/**
 * A same-box A/B of one cell: the PR's base commit and the PR launched alternately on this box (ABBA), the cell
 * measured on each launch. `ran`: its verdict replaced the stored-baseline one, kept in `stored`; `not-run`:
 * `reason` says why and the stored-baseline verdict stands. The store and the history never see it.
 */
export interface CellAb {
  status: 'ran' | 'not-run'
  /** Why the A/B did not run or did not finish. */
  reason?: string
  /** The base commit the base arm was built from. */
  base?: string
  /** Launches per arm. */
  launches?: number
  /** Each launch in the order it ran: its arm and the cell measured on it (warm rounds, the cold one discarded). */
  arms?: AbLaunch[]
  /** Engine time of this target's base-arm launches (launch to teardown), ms; also when it ran only in part. */
  baseMs?: number
  /** Engine time of this target's PR-arm launches, ms. */
  prMs?: number
  /** The verdict against the stored baseline, which the A/B verdict replaced. */
  stored?: CellVerdict
  /**
   * The engine changes since the stored baseline that both arms ran alike (`engine 1.0 → 1.1, base arm 1.1`): the
   * A/B measured the same engine twice and cannot clear the stored verdict. Absent when the arms differ as the PR does.
   */
  sameEngine?: string[]
  /** Why no more launches ran while the cell was undecided (the most per arm, or the budget left). */
  ended?: string
}

export interface AbLaunch {
  arm: AbArm
  status: CellStatus
  error?: string
  metrics: MetricsBlock | null
  rounds: RoundResult[]
  /** Launch to teardown, ms. */
  engineMs: number
  /** What the launch ran (engine version, image, launched program), from its own reading. */
  fingerprint?: Fingerprint
}
