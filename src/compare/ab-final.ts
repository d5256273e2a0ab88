/**
 * A cell's final verdict after a same-box A/B (pure): the A/B's verdict on the speed metrics, the stored-baseline
 * verdict where the A/B cannot speak for it, and what the cell fails outside the speed metrics.
 *
 * The A/B decides a metric when it decided it (regression, improvement or pass: its interval is on one side of
 * the limit, or the loss is past twice the limit). Two things keep the stored-baseline verdict in place:
 *
 * - **Undecided never downgrades.** A metric the stored path called a regression and the A/B did not measure, or
 *   left inconclusive while its launches lean toward a loss (past the limit), stays a regression: launches that
 *   agree with the stored path are no evidence that the loss is not there. An inconclusive A/B whose launches
 *   lean the other way contradicts the stored path — which, on a box that drifted since the baseline, is what an
 *   unchanged PR looks like — so the metric is inconclusive: never a pass, and it says what would decide it.
 * - **Arms that do not differ the way the PR does.** When the engine the PR ran differs from the stored baseline's
 *   (version, image, digest, launched program, model file) and the base arm ran the PR's engine too (installed
 *   or built before the step, outside the base commit's files), the A/B measured the same engine twice: it can
 *   find a regression of the PR's own files, never clear one. Every metric then keeps the stored verdict unless
 *   the A/B calls it a regression.
 */
import type { CellVerdict, MetricVerdict } from '../core/results.js'
import { metricLabel, type GatedMetric } from '../core/metrics.js'
import { cellStatus } from './judge.js'

export interface AbFinalInput {
  /** The verdict against the stored baseline (after its confirmation). */
  stored: CellVerdict
  /** The A/B's verdict on the speed metrics. */
  ab: CellVerdict
  /** What the A/B was (`A/B on this box, ABBA × 2, against the base abc1234`). */
  said: string
  /** The engine changes since the stored baseline that both arms ran alike; empty when the arms differ as the PR does. */
  sameEngine?: readonly string[]
}

/** The cell's verdict: the A/B's where it may speak, the stored one where it may not; never `error` unless the A/B's is. */
export function abFinal({ stored, ab, said, sameEngine = [] }: AbFinalInput): CellVerdict {
  const failures = stored.failures ?? []
  const metrics: CellVerdict['metrics'] = {}
  const kept: string[] = []
  const names = new Set([...Object.keys(ab.metrics), ...Object.keys(stored.metrics)] as GatedMetric[])
  for (const metric of names) {
    const chosen = finalMetric(stored.metrics[metric], ab.metrics[metric], sameEngine.length > 0)
    if (!chosen) continue
    metrics[metric] = chosen.verdict
    if (chosen.kept) kept.push(chosen.kept)
  }
  const undecided = ab.undecided ?? []
  const status = ab.status === 'error' ? 'error' : cellStatus(metrics, failures, undecided)
  const engine = sameEngine.length
    ? `both arms ran the PR's engine (${sameEngine.join('; ')}), so the A/B cannot clear the stored-baseline verdict; build or install the base's engine apart (ab-setup) for an A/B that can`
    : undefined
  const note = [
    said,
    engine,
    ...kept,
    ab.note,
    ...failures,
    `stored baseline: ${stored.status}${stored.note ? ` (${stored.note})` : ''}`,
  ]
    .filter(Boolean)
    .join('; ')
  const verdict: CellVerdict = { status, metrics, note }
  if (stored.reference) verdict.reference = stored.reference
  if (failures.length) verdict.failures = [...failures]
  if (undecided.length) verdict.undecided = [...undecided]
  if (status === 'regression' && stored.serverChanges) verdict.serverChanges = [...stored.serverChanges]
  return verdict
}

/**
 * One metric's final verdict: the A/B's, or the stored one with a line saying why it was kept. A metric only the
 * stored path judged is kept when it is a regression (the A/B did not measure it, so it cannot clear it).
 */
function finalMetric(
  stored: MetricVerdict | undefined,
  ab: MetricVerdict | undefined,
  sameEngine: boolean,
): { verdict: MetricVerdict; kept?: string } | undefined {
  if (!ab) return stored?.status === 'regression' ? keep(stored, 'the A/B did not measure it') : undefined
  if (!stored || ab.status === 'regression') return { verdict: ab }
  if (sameEngine && stored.status !== 'pass' && stored.status !== 'improvement')
    return keep(stored, `the A/B on the same engine found ${ab.status}`, ab)
  if (ab.status === 'inconclusive' && ab.leansToLoss && stored.status === 'regression')
    return keep(stored, 'the A/B could not decide it and leans toward the loss', ab)
  return { verdict: ab }
}

function keep(stored: MetricVerdict, why: string, ab?: MetricVerdict): { verdict: MetricVerdict; kept: string } {
  const label = metricLabel(stored.metric, stored.stat)
  const kept = `${label}: the stored-baseline ${stored.status} stands, ${why}${ab ? ` (${ab.reason})` : ''}`
  return { verdict: { ...stored, reason: `${stored.reason}; ${why}` }, kept }
}
