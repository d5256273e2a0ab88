/**
 * What the dashboard says of a run that is not a default-branch run (a pull request's, or a local compare run): its
 * name (`this run (PR #12)`, from the ref GitHub checks a pull request out at, `refs/pull/<n>/merge`:
 * https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request),
 * the baseline its verdicts compared with, its own point on each chart, and the level that point was judged
 * against. A figure is the verdict's where the verdict compared the chart's statistic (the mean), so the page shows
 * the number the gate decided on.
 */
import { formatNumber } from '../../core/format.js'
import { metricInfo, readCellMetric, type GatedMetric } from '../../core/metrics.js'
import type { CellResult, HistoryEntry, ResultsFile, RunMeta } from '../../core/results.js'
import { escapeHtml, safeUrl } from '../escape.js'
import { chartUnit } from './dashboard-band.js'
import type { RegressedPoint, RunPoint } from './dashboard-marks.js'

/** `this run (PR #12)`, `this run (local)`, `this run (workflow_dispatch)`. */
export function runLabel(run: RunMeta): string {
  const pr = /^refs\/pull\/(\d+)\//.exec(run.ref ?? '')
  const what = pr ? `PR #${pr[1]}` : !run.event || run.event === 'local' ? 'local' : run.event
  return `this run (${what})`
}

/** The metric's verdict when it compared the mean, the statistic the charts draw. */
const meanVerdict = (cell: CellResult, metric: GatedMetric) => {
  const v = cell.verdict.metrics[metric]
  return v && v.stat === 'mean' ? v : undefined
}

/** This run's figure of `metric`, in the chart's unit: the verdict's where it compared the mean. */
export function runPoint(cell: CellResult, metric: GatedMetric, label: string): RunPoint {
  const verdict = meanVerdict(cell, metric)
  const raw = verdict?.current ?? readCellMetric(cell, metric, 'mean')
  const { scale } = chartUnit(metric)
  return {
    value: typeof raw === 'number' && Number.isFinite(raw) ? raw * scale : null,
    label,
    regressed: verdict?.status === 'regression',
    reason: verdict?.reason,
  }
}

/**
 * The level this run's verdict compared `metric` with, in the chart's unit: the baseline's figure (a baseline
 * file's, or the stored reference), never one computed here. Undefined when nothing was compared.
 */
export function verdictReference(cell: CellResult, metric: GatedMetric): number | undefined {
  const verdict = meanVerdict(cell, metric)
  const stored = cell.verdict.reference?.[metric]
  const value = verdict?.baseline ?? (stored?.stat === 'mean' ? stored.value : undefined)
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined
  return value * chartUnit(metric).scale
}

/** `baseline 28.5 tok/s (0000000, file fixtures/demo-baseline.json)`: the reference line's title. */
export function referenceTitle(results: ResultsFile, metric: GatedMetric, value: number): string {
  const baseline = results.summary?.baseline
  const { unit } = chartUnit(metric)
  const from = baseline ? ` (${baseline.sha.slice(0, 7)}, ${baseline.source})` : ''
  return `baseline ${formatNumber(value)} ${unit}${from}: ${metricInfo(metric).label} as this run's verdict compared it`
}

/**
 * The newest history point, when it is the stored baseline's run and that run's verdict found `metric` regressed:
 * the stored page marks it.
 */
export function storedRegressions(
  baseline: ResultsFile,
  history: readonly HistoryEntry[],
  cell: CellResult,
  metric: GatedMetric,
): RegressedPoint[] {
  const verdict = cell.verdict.metrics[metric]
  const last = history.length - 1
  if (verdict?.status !== 'regression' || last < 0 || history[last].sha !== baseline.run.sha) return []
  return [{ index: last, reason: verdict.reason }]
}

/** The meta line of a page about this run: its commit and name, and the baseline it was compared with. */
export function runMetaParts(results: ResultsFile, repoUrl: string | undefined): string[] {
  const { run } = results
  const repo = safeUrl(repoUrl)
  const commit = (sha: string) => {
    const code = `<code title="${escapeHtml(sha)}">${escapeHtml(sha.slice(0, 12))}</code>`
    return repo && /^[0-9a-f]{40,64}$/.test(sha) ? `<a href="${escapeHtml(`${repo}/commit/${sha}`)}">${code}</a>` : code
  }
  const baseline = results.summary?.baseline
  return [
    `${escapeHtml(runLabel(run))} ${run.sha ? commit(run.sha) : 'commit unknown'}`,
    baseline
      ? `compared with baseline ${commit(baseline.sha)} (${escapeHtml(baseline.source)})`
      : 'compared with no baseline',
  ]
}
