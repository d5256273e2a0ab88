/**
 * The quality gate of one cell, always against the same cell's baseline: a model whose answers
 * are poor or whose text always rambles passes as long as it stays so; a change to garbage
 * fails. Accuracy may drop by at most `maxAccuracyDrop`; agreement with the baseline's greedy
 * outputs must reach `minAgreement`; the degenerate share may rise by at most
 * DEGENERATE_MAX_RISE over the baseline's (a warning instead with `degenerate: warn`, not
 * checked with `off`). A figure either side lacks is not compared.
 */
import { formatPercent, formatPoints } from '../core/format.js'
import {
  DEGENERATE_KINDS,
  type CellQuality,
  type DegenerateKind,
  type DegenerateTally,
  type ProbeResult,
  type QualityGate,
} from '../core/quality.js'
import { quote } from './text.js'

/**
 * Largest rise of the degenerate share that passes. Benchmark prompts are synthetic and a
 * healthy model may loop on some of them; at temperature 0 the same ones loop again, so the
 * share moves little between healthy runs, and a rise past a quarter of the responses is a change.
 */
export const DEGENERATE_MAX_RISE = 0.25

export interface QualityVerdict {
  status: 'pass' | 'regression'
  /** Why the cell regressed, one line per failed check. */
  reasons: string[]
  /** Checks that failed but do not gate (`degenerate: warn`), and figures that could not be compared. */
  warnings: string[]
}

/** What to do about replies cut at `max-tokens`. */
export const CUT_HINT = 'a model that reasons before answering needs a larger quality.max-tokens'

/**
 * Below this accuracy on both sides the probe has too few right answers to lose: a broken kernel
 * that turns them wrong moves accuracy by a few points at most, so the gate says it cannot tell.
 */
export const BLIND_ACCURACY = 0.5

function blindWarning(current: ProbeResult, accuracies: { current: number; baseline: number }): string | undefined {
  if (accuracies.current >= BLIND_ACCURACY || accuracies.baseline >= BLIND_ACCURACY) return undefined
  const cut = current.cut ? `; ${current.cut} of ${current.questions} replies reached max-tokens: ${CUT_HINT}` : ''
  return `accuracy ${formatPercent(accuracies.current)} (baseline ${formatPercent(accuracies.baseline)}): too few right answers for the probe to see wrong ones${cut}`
}

/** Accuracy over the first `n` questions, from the numbers of the missed ones. */
function accuracyOver(probe: ProbeResult, n: number): number {
  return (n - (probe.missed ?? []).filter((q) => q <= n).length) / n
}

/**
 * Accuracies on the same questions: the whole probe when both asked the same, else the first
 * questions both asked (same seed, and both files list the missed ones); undefined when there are none.
 */
function sameQuestions(
  current: ProbeResult,
  baseline: ProbeResult,
): { current: number; baseline: number; on?: number } | undefined {
  if (current.seed !== baseline.seed) return undefined
  if (current.questions === baseline.questions) return { current: current.accuracy, baseline: baseline.accuracy }
  if (!current.missed || !baseline.missed) return undefined
  const n = Math.min(current.questions, baseline.questions)
  return { current: accuracyOver(current, n), baseline: accuracyOver(baseline, n), on: n }
}

function accuracyProblem(
  current: ProbeResult,
  baseline: ProbeResult,
  gate: QualityGate,
): { reason?: string; warning?: string } {
  const same = sameQuestions(current, baseline)
  if (!same) {
    return {
      warning: `probe questions differ from the baseline's (seed ${current.seed}, ${current.questions} questions; baseline seed ${baseline.seed}, ${baseline.questions}): accuracy not compared`,
    }
  }
  const on = same.on === undefined ? '' : ` on the first ${same.on} questions both asked`
  const drop = same.baseline - same.current
  if (drop <= gate.maxAccuracyDrop + 1e-9) {
    const warning =
      blindWarning(current, same) ??
      (same.on === undefined
        ? undefined
        : `probe question counts differ (${current.questions}; baseline ${baseline.questions}): accuracy compared${on}`)
    return warning ? { warning } : {}
  }
  return {
    reason: `accuracy ${formatPercent(same.current)} (baseline ${formatPercent(same.baseline)})${on}: dropped ${formatPoints(drop)} points, limit ${formatPoints(gate.maxAccuracyDrop)}`,
  }
}

const KIND_WORDS: Record<DegenerateKind, string> = {
  repeat: 'repeat one fragment',
  compression: 'loop a longer passage',
  vocabulary: 'collapse to a handful of words',
}

function degenerateText(tally: DegenerateTally, baseline: DegenerateTally): string {
  const kinds = DEGENERATE_KINDS.filter((k) => tally.kinds[k] > 0)
  const words = (k: DegenerateKind) =>
    `${KIND_WORDS[k]}${k === 'repeat' && tally.example !== undefined ? ` (${quote(tally.example, 24)})` : ''}`
  const what =
    kinds.length === 1
      ? `${formatPercent(tally.share ?? 0)} of responses ${words(kinds[0])}`
      : `${formatPercent(tally.share ?? 0)} of responses (${kinds.map((k) => `${formatPercent(tally.kinds[k] / tally.judged)} ${words(k)}`).join(', ')})`
  return `output degenerate: ${what}; baseline ${formatPercent(baseline.share ?? 0)}`
}

/** Agreement floored to two decimals, so a failing figure never prints as the limit. */
function agreementText(mean: number): string {
  return (Math.floor(mean * 100 + 1e-9) / 100).toFixed(2)
}

/** Compares a cell's quality figures with its baseline's under the target's gate. */
export function qualityVerdict(
  current: CellQuality,
  baseline: CellQuality | undefined,
  gate: QualityGate,
): QualityVerdict {
  const reasons: string[] = []
  const warnings: string[] = []
  // Said on the verdict, not only in the log: what the probe could not ask is not a pass it earned.
  const failed = current.probe?.failed
  if (failed) {
    warnings.push(
      `${failed} quality probe request${failed === 1 ? '' : 's'} failed twice: counted as wrong answers, left out of agreement`,
    )
  }
  if (current.probe && baseline?.probe) {
    const { reason, warning } = accuracyProblem(current.probe, baseline.probe, gate)
    if (reason) reasons.push(reason)
    if (warning) warnings.push(warning)
  }
  const agreement = current.agreement
  if (agreement && agreement.mean < gate.minAgreement) {
    const worst = agreement.worst ? `; worst prompt: ${agreement.worst}` : ''
    reasons.push(
      `agreement ${agreementText(agreement.mean)} with the baseline's greedy outputs (min ${gate.minAgreement})${worst}`,
    )
  }
  const [now, before] = [current.degenerate, baseline?.degenerate]
  if (
    gate.degenerate !== 'off' &&
    now?.share != null &&
    before?.share != null &&
    now.share - before.share > DEGENERATE_MAX_RISE
  ) {
    ;(gate.degenerate === 'fail' ? reasons : warnings).push(degenerateText(now, before))
  }
  return { status: reasons.length > 0 ? 'regression' : 'pass', reasons, warnings }
}
