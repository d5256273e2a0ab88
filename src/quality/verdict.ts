/**
 * The quality gate of one cell, always against the same cell's baseline: a model whose answers
 * are poor or whose text always rambles passes as long as it stays so; a change to garbage
 * fails. Accuracy may drop by at most `maxAccuracyDrop`; agreement with the baseline's greedy
 * outputs must reach `minAgreement`; the degenerate share may rise by at most
 * DEGENERATE_MAX_RISE over the baseline's (a warning instead with `degenerate: warn`, not
 * checked with `off`). A figure either side lacks is not compared.
 */
import { formatPercent } from '../core/format.js'
import { DEGENERATE_KINDS, type CellQuality, type DegenerateKind, type DegenerateTally, type ProbeResult, type QualityGate } from '../core/quality.js'
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

/** A fraction as points with at most one decimal: 0.83 → `83`, 0.125 → `12.5`. */
function points(fraction: number): string {
  return String(Math.round(fraction * 1000) / 10)
}

function accuracyProblem(current: ProbeResult, baseline: ProbeResult, gate: QualityGate): { reason?: string; warning?: string } {
  if (current.seed !== baseline.seed || current.questions !== baseline.questions) {
    return { warning: `probe questions differ from the baseline's (seed ${current.seed}, ${current.questions} questions; baseline seed ${baseline.seed}, ${baseline.questions}): accuracy not compared` }
  }
  const drop = baseline.accuracy - current.accuracy
  if (drop <= gate.maxAccuracyDrop + 1e-9) return {}
  return { reason: `accuracy ${formatPercent(current.accuracy)} (baseline ${formatPercent(baseline.accuracy)}): dropped ${points(drop)} points, limit ${points(gate.maxAccuracyDrop)}` }
}

const KIND_WORDS: Record<DegenerateKind, string> = {
  repeat: 'repeat one fragment',
  compression: 'loop a longer passage',
  vocabulary: 'collapse to a handful of words',
}

function degenerateText(tally: DegenerateTally, baseline: DegenerateTally): string {
  const kinds = DEGENERATE_KINDS.filter((k) => tally.kinds[k] > 0)
  const words = (k: DegenerateKind) => `${KIND_WORDS[k]}${k === 'repeat' && tally.example !== undefined ? ` (${quote(tally.example, 24)})` : ''}`
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
export function qualityVerdict(current: CellQuality, baseline: CellQuality | undefined, gate: QualityGate): QualityVerdict {
  const reasons: string[] = []
  const warnings: string[] = []
  if (current.probe && baseline?.probe) {
    const { reason, warning } = accuracyProblem(current.probe, baseline.probe, gate)
    if (reason) reasons.push(reason)
    if (warning) warnings.push(warning)
  }
  const agreement = current.agreement
  if (agreement && agreement.mean < gate.minAgreement) {
    const worst = agreement.worst ? `; worst prompt: ${agreement.worst}` : ''
    reasons.push(`agreement ${agreementText(agreement.mean)} with the baseline's greedy outputs (min ${gate.minAgreement})${worst}`)
  }
  const [now, before] = [current.degenerate, baseline?.degenerate]
  if (gate.degenerate !== 'off' && now?.share != null && before?.share != null && now.share - before.share > DEGENERATE_MAX_RISE) {
    ;(gate.degenerate === 'fail' ? reasons : warnings).push(degenerateText(now, before))
  }
  return { status: reasons.length > 0 ? 'regression' : 'pass', reasons, warnings }
}
