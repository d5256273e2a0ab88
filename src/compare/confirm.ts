/**
 * Confirmation: a cell that looks regressed is measured again (while its server is still up, or after a fresh
 * launch) and the regression stands only where the re-measurement agrees, metric by metric — a decode
 * regression is confirmed by decode, not by TTFT.
 *
 * The decision is taken on both measurements together: the steady rounds of the first measurement and of every
 * re-measurement form one sample, judged against the same reference (sample.ts, noise.ts). Pooling halves the
 * round-to-round part of the noise instead of asking a second, equally noisy measurement to agree on its own; a
 * real loss shows in both, a chance one is diluted. A launch offset shared by both measurements does not average
 * out, which the noise model knows (its launch count is 1 unless the confirmation re-launched the engine).
 *
 * A re-measurement that fails makes the cell an `error`: a confirmation that could not run neither confirms nor
 * clears the regression.
 */
import { metricInfo, type GatedMetric } from '../core/metrics.js'
import type { GateConfig } from '../core/plan.js'
import type { CellResult, CellVerdict, MetricVerdict } from '../core/results.js'
import type { BaselineView } from './baseline.js'
import { cellStatus, judgeSample, type JudgeOptions } from './judge.js'
import { measured } from './sample.js'

export interface ConfirmOptions extends JudgeOptions {
  /** The re-measurements ran on a freshly launched engine (`confirm-fresh`), one launch each. */
  fresh?: boolean
}

export function needsConfirmation(verdict: CellVerdict): boolean {
  return verdict.status === 'regression'
}

/**
 * The verdict after re-measuring: `first` carries its own verdict (from `judgeCell`), `again` every
 * re-measurement so far, oldest first (with `confirm: n`, call again after each while `needsConfirmation` holds).
 */
export function confirmCell(
  first: CellResult,
  again: readonly CellResult[],
  baseline: BaselineView,
  gate: GateConfig,
  options: ConfirmOptions = {},
): CellVerdict {
  if (!needsConfirmation(first.verdict)) return first.verdict
  const failed = again.findIndex((c) => c.status === 'error' || !c.metrics)
  if (failed >= 0) {
    const note = `re-measurement ${failed + 1} failed (${again[failed].error ?? 'nothing measured'})`
    return { ...first.verdict, status: 'error', confirmed: again.length, note: join(first.verdict.note, note) }
  }
  const pooled = judgeSample(measured([first, ...again], options.fresh ? 1 + again.length : 1), baseline, gate, options)
  return { ...confirmVerdict(first.verdict, pooled, !options.fresh), confirmed: again.length }
}

/**
 * Folds a decisive verdict — the pooled one from `confirmCell`, or a re-measurement's own — into the first: each
 * metric that regressed first takes the decisive verdict of the same metric; the others keep theirs (a metric
 * that only regresses in the pooled sample has not been seen twice).
 */
export function confirmVerdict(first: CellVerdict, decisive: CellVerdict, sameLaunch = false): CellVerdict {
  if (first.status !== 'regression') return first
  const confirmed = (first.confirmed ?? 0) + 1
  if (decisive.status === 'error') {
    return {
      ...first,
      status: 'error',
      confirmed,
      note: join(first.note, `the re-measurement failed (${decisive.note ?? 'error'})`),
    }
  }
  const metrics: CellVerdict['metrics'] = { ...first.metrics }
  const said: string[] = []
  for (const [key, m] of Object.entries(first.metrics) as [GatedMetric, MetricVerdict][]) {
    if (m.status !== 'regression') continue
    // A launch figure (startup) re-measured on the same launch is the same number: it stands as seen once.
    if (sameLaunch && metricInfo(key).launch) {
      said.push(`${m.reason} (one launch; confirm-fresh measures it on another)`)
      continue
    }
    const again = decisive.metrics[key] ?? {
      ...m,
      status: 'inconclusive',
      needs: 'rounds',
      reason: `${m.reason}; not measured again`,
    }
    metrics[key] = again
    said.push(`${again.reason} (${again.status === 'regression' ? 'confirmed' : `first ${m.reason}`})`)
  }
  // A failure outside the metrics (a new length miss) stands when the decisive verdict still has it.
  const failures = first.failures?.length && decisive.failures?.length ? decisive.failures : undefined
  const undecided = decisive.undecided
  const status = cellStatus(metrics, failures, undecided)
  const outcome =
    status === 'regression'
      ? `confirmed by re-measurement ${confirmed}`
      : `regressed once, not confirmed by re-measurement ${confirmed}`
  const verdict: CellVerdict = {
    ...first,
    status,
    metrics,
    confirmed,
    note: join(first.note, `${outcome}: ${[...said, ...(failures ?? [])].join('; ')}`),
  }
  if (failures) verdict.failures = failures
  else delete verdict.failures
  if (undecided) verdict.undecided = undecided
  else delete verdict.undecided
  return verdict
}

function join(a: string | undefined, b: string): string {
  return a ? `${a}; ${b}` : b
}
