/**
 * Output quality figures: what the results file records per cell under `quality`, and the
 * gate that compares them with the same cell's baseline. Shared by the quality checks, the
 * config, compare, report and store, so the shapes live here; so does the one list of the figures the report
 * shows (`QUALITY_FIGURES`).
 */
import { formatPercent } from './format.js'

/** Why a response counts as degenerate: one short fragment repeated, a collapsed vocabulary, or a longer loop. */
export const DEGENERATE_KINDS = ['repeat', 'vocabulary', 'compression'] as const
export type DegenerateKind = (typeof DEGENERATE_KINDS)[number]

/** The degenerate-output check of one response (quality/degenerate.ts); a request record carries it. */
export interface DegenerateCheck {
  /** False when the sample was too short to judge. */
  judged: boolean
  degenerate: boolean
  kind?: DegenerateKind
  /** The repeated fragment (at most 32 characters), for `repeat`. */
  fragment?: string
  /** Plain text: why. */
  reason: string
}

/** One greedy (temperature 0) output of a fixed prompt, clipped to a bounded length. */
export interface GreedyOutput {
  prompt: string
  text: string
}

/** The probe of one target, run once after readiness and before measuring; recorded on each of its cells. */
export interface ProbeResult {
  /** Seed and count of the generated questions: two runs compare accuracies only on the same questions. */
  seed: number
  questions: number
  correct: number
  /** correct / questions, 0–1. */
  accuracy: number
  /**
   * 1-based numbers of the questions answered wrong (at most PROBE_MAX_QUESTIONS): a list of the same
   * seed always starts with a shorter one, so two runs that asked different counts are compared on
   * the questions both asked. Files before this field lack it.
   */
  missed?: number[]
  /** Questions whose reply reached `max-tokens` by the server's count (a model that reasons before answering is cut off); absent in older files. */
  cut?: number
  /** What a later run's agreement is measured against once this run is the baseline. */
  greedy: GreedyOutput[]
  /**
   * Probe requests that failed twice, within `max-error-share`: their questions count as wrong, their greedy
   * prompts are left out. Absent when every request answered.
   */
  failed?: number
}

/** Agreement of this run's greedy outputs with the baseline's, 0–1, the mean over the prompts both have. */
export interface Agreement {
  mean: number
  prompts: number
  /** The least agreeing prompt in plain text (escaped where it is shown); absent when every prompt agrees fully. */
  worst?: string
}

/** Degenerate responses among the sampled responses of one cell. */
export interface DegenerateTally {
  /** Responses long enough to judge. */
  judged: number
  degenerate: number
  /** degenerate / judged; null when no response was long enough to judge. */
  share: number | null
  kinds: Record<DegenerateKind, number>
  /** The first repeated fragment found, clipped (plain text). */
  example?: string
}

export interface CellQuality {
  probe?: ProbeResult
  /** Wall time of the target's probe in ms. */
  probeMs?: number
  /** Absent when the baseline holds no greedy outputs. */
  agreement?: Agreement
  degenerate?: DegenerateTally
}

export type DegenerateGate = 'fail' | 'warn' | 'off'

export interface QualityGate {
  /** Largest accuracy drop that still passes, as a fraction (5 points → 0.05). */
  maxAccuracyDrop: number
  /** Lowest agreement with the baseline's greedy outputs that still passes, 0–1. */
  minAgreement: number
  /** What a rise of the degenerate share does to the cell. */
  degenerate: DegenerateGate
}

export const DEFAULT_QUALITY_GATE: QualityGate = { maxAccuracyDrop: 0.05, minAgreement: 0.8, degenerate: 'fail' }

export interface QualityFigureInfo {
  label: string
  /** Short name in the report's Quality column (`acc 100%`). */
  short: string
  higherIsBetter: boolean
  format(value: number): string
  /** The figure in a cell's `quality`; undefined when it was not recorded. */
  read(quality: CellQuality | undefined): number | undefined
  /** Shown in the report's Quality column and as a leaderboard column. */
  shown: boolean
}

/**
 * The output quality figures the gate judges (`gate.quality`, quality/verdict.ts) and the report shows: the one
 * list the report's Quality column and the leaderboard read.
 */
export const QUALITY_FIGURES = {
  accuracy: {
    label: 'probe accuracy',
    short: 'acc',
    higherIsBetter: true,
    format: formatPercent,
    read: (q) => q?.probe?.accuracy,
    shown: true,
  },
  agreement: {
    label: 'greedy agreement',
    short: 'agree',
    higherIsBetter: true,
    format: (v) => (Math.floor(v * 100 + 1e-9) / 100).toFixed(2),
    read: (q) => q?.agreement?.mean,
    shown: true,
  },
  'degenerate-share': {
    label: 'degenerate output',
    short: 'degenerate',
    higherIsBetter: false,
    format: formatPercent,
    read: (q) => q?.degenerate?.share ?? undefined,
    shown: false,
  },
} as const satisfies Record<string, QualityFigureInfo>

export type QualityFigure = keyof typeof QUALITY_FIGURES
export const SHOWN_QUALITY_FIGURES = (Object.keys(QUALITY_FIGURES) as QualityFigure[]).filter(
  (f) => QUALITY_FIGURES[f].shown,
)
