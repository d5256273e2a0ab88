/**
 * A bisection as the results file records it (`bisect[]`, one per target; docs/bisect.md): the first-parent commits
 * from the good end to the bad one, each probe — a same-box paired A/B of one commit against another — with its
 * verdict per cell, and what the probes name: the culprit, several steps, or why neither.
 */
import type { CellVerdict } from './verdicts.js'

/**
 * What one probe said of its commit against the commit it was paired with: worse beyond the limit (`past`), not
 * (`within`: a pass, an improvement), undecided within `ab-max-launches` or the budget, the probe's commit did not
 * launch or did not define the cells (`skip`, as `git bisect skip`), or the commit it was paired with failed (`error`).
 */
export const PROBE_SIGNS = ['past', 'within', 'undecided', 'skip', 'error'] as const
export type ProbeSign = (typeof PROBE_SIGNS)[number]

/**
 * Why a probe ran: the two ends against each other; a commit against the good end while halving the range; the
 * first commit past the limit against the commit before it (one step, or a loss built over several); what is left
 * from a step to the bad end (a second step).
 */
export const PROBE_ROLES = ['ends', 'search', 'step', 'rest'] as const
export type ProbeRole = (typeof PROBE_ROLES)[number]

export interface BisectProbe {
  role: ProbeRole
  /** The commit measured (the A/B's PR arm). */
  sha: string
  /** The commit it was paired with (the A/B's base arm). */
  against: string
  sign: ProbeSign
  /** Per cell id, the A/B's verdict on the pairs. */
  cells: Record<string, CellVerdict>
  /** Launches per arm. */
  launches: number
  /** Engine time of both arms, ms. */
  engineMs: number
  /** Why it was skipped, failed, or stopped undecided. */
  reason?: string
}

/**
 * How a bisection ended: one commit named (`culprit`), several commits each within the limit that add up past it
 * or more than one step past it (`steps`), the ends measure the same here (`not-reproduced`), the ends' difference
 * undecided (`undecided`), the budget spent with the range narrowed (`budget`), or it could not run (`error`).
 */
export const BISECT_OUTCOMES = ['culprit', 'steps', 'not-reproduced', 'undecided', 'budget', 'error'] as const
export type BisectOutcome = (typeof BISECT_OUTCOMES)[number]

/** The pull request that brought a commit. */
export interface CommitPull {
  number: number
  url: string
  title: string
}

export interface BisectRecord {
  target: string
  /** The cells probed (`only` over the target's cells at the bad end). */
  cells: string[]
  good: string
  bad: string
  /** First-parent commits from good to bad, both ends included, oldest first. */
  commits: string[]
  outcome: BisectOutcome
  /** The first commit worse than the good end beyond the limit, alone responsible for it. */
  culprit?: string
  /** Every commit named: the steps past the limit, or the span over which the loss built up. */
  steps?: string[]
  /** The range still holding the first commit past the limit when the bisection could not narrow it further. */
  range?: { after: string; through: string }
  /** Commits skipped: their engine did not launch, or their matrix file did not define the cells. */
  skipped?: string[]
  /** One line: what the probes name, and why. */
  reason: string
  probes: BisectProbe[]
  /** Engine time of every probe, ms. */
  engineMs: number
  /** The culprit's pull request, where GitHub names one. */
  pull?: CommitPull
  /** The episode's GitHub issue, or why it could not be written. */
  issue?: { url: string; action: 'created' | 'updated' | 'unchanged' } | { problem: string }
}
