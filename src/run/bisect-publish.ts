/**
 * The end of a `mode: bisect` run (docs/bisect.md): the results file with its `bisect[]`, the report and the job
 * summary written first; then, with a token, the culprit's pull request (GitHub "List pull requests associated with
 * a commit") and the episode's issue, created or updated in place (regression-issue.ts), both said in the report.
 * A token that may not write issues leaves the culprit named and says the issue could not be written.
 */
import { errorMessage } from '../core/errors.js'
import type { BisectRecord } from '../core/bisect-record.js'
import { httpStatus, type BoundedGitHub } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import { metricInfo, metricLabel } from '../core/metrics.js'
import type { Plan } from '../core/plan.js'
import { redacted } from '../core/redact.js'
import { RESULTS_SCHEMA, type ResultsFile } from '../core/results.js'
import { formatDelta } from '../core/format.js'
import { renderBisect, type BisectContext } from '../report/index.js'
import type { PipelineResult, RunOutcome } from './publish.js'
import { writeOutputs } from './publish.js'
import { pullOfCommit, upsertEpisodeIssue, type Episode, type LevelBefore } from './regression-issue.js'

export interface BisectPublication {
  records: BisectRecord[]
  plan: Plan
  hardware: string
  resultsDir: string
  meta: ResultsFile['run']
  report: BisectContext
  /**
   * `bisect: auto`: the default-branch run the bisection followed, already written: its results file gains `bisect[]`,
   * its report the bisection's, and its outcome (the alert fails the step) stands, with the culprit added.
   */
  after?: { results: ResultsFile; report: string; outcome: RunOutcome }
}

export interface BisectPublishDeps {
  log: Logger
  github?: BoundedGitHub
  onOutputs?: (written: PipelineResult) => Promise<void>
  /** Hears of the records as finally written, the pull request and the issue included. */
  onRecords?: (records: BisectRecord[]) => Promise<void>
}

/** Writes the bisection's files, then what needs GitHub; the step fails only when a bisection could not run. */
export async function publishBisect(p: BisectPublication, deps: BisectPublishDeps): Promise<PipelineResult> {
  const write = async (records: BisectRecord[]) => {
    const failed = records.filter((r) => r.outcome === 'error')
    const culprit = records.find((r) => r.culprit)?.culprit
    const own: RunOutcome = {
      verdict: failed.length ? 'error' : 'pass',
      regressions: 0,
      ...(failed.length && {
        failure: `bisection could not run: ${failed.map((r) => `${r.target}: ${r.reason}`).join('; ')}`,
      }),
    }
    const outcome = { ...(p.after?.outcome ?? own), ...(culprit && { culprit }) }
    const results = redacted<ResultsFile>({
      ...(p.after?.results ?? {
        schema: RESULTS_SCHEMA,
        run: { ...p.meta, finishedAt: new Date().toISOString() },
        cells: [],
      }),
      bisect: records,
    })
    const section = renderBisect(results.bisect ?? [], p.report)
    const report = p.after ? `${p.after.report.trimEnd()}\n\n${section}` : section
    const written = await writeOutputs(p.resultsDir, '', results, report, outcome)
    await deps.onOutputs?.(written)
    return written
  }
  const first = await write(p.records)
  const { github } = deps
  const named = p.records.some((r) => r.culprit || r.steps?.length)
  if (!github || !named) {
    if (named) await deps.onRecords?.(p.records)
    return first
  }
  const told = await Promise.all(p.records.map((r) => tellGitHub(r, p, github, deps.log)))
  const written = await write(told)
  await deps.onRecords?.(told)
  return written
}

/** The record with its culprit's pull request and the episode's issue, or why the issue could not be written. */
async function tellGitHub(
  r: BisectRecord,
  p: BisectPublication,
  github: BoundedGitHub,
  log: Logger,
): Promise<BisectRecord> {
  const named = r.culprit ?? r.steps?.[0]
  if (!named) return r
  let record = r
  try {
    const pull = await github.operation('the culprit pull request', ({ request, repo }) =>
      pullOfCommit(request, repo, named),
    )
    if (pull) record = { ...record, pull }
  } catch (error) {
    log.warn(`the pull request of ${named.slice(0, 7)} could not be read: ${errorMessage(error)}`)
  }
  const episode = episodeOf(record, p)
  if (!episode) return record
  try {
    const issue = await github.operation('the regression issue', ({ request, repo }) =>
      upsertEpisodeIssue(request, repo, episode),
    )
    log.info(`regression issue ${issue.action}: ${issue.url}`)
    return { ...record, issue: { url: issue.url, action: issue.action } }
  } catch (error) {
    const hint = httpStatus(error) === 403 ? ' (a read-only token: grant `issues: write`)' : ''
    const problem = `${errorMessage(error)}${hint}`
    log.warn(`the regression issue could not be written: ${problem}`)
    return { ...record, issue: { problem } }
  }
}

/**
 * The episode a bisection found: its cells that regressed between the ends, the level of each regressed metric at
 * the good end (the A/B's base arm: measured on this box), the limit its target's gate holds it to.
 */
export function episodeOf(
  r: BisectRecord,
  p: Pick<BisectPublication, 'plan' | 'hardware' | 'report'>,
): Episode | undefined {
  const ends = r.probes.find((x) => x.role === 'ends')
  const gate = p.plan.targets.find((t) => t.id === r.target)?.gate
  if (!ends || !gate) return undefined
  const before: Record<string, Record<string, LevelBefore>> = {}
  const moved: string[] = []
  for (const [id, verdict] of Object.entries(ends.cells)) {
    for (const m of Object.values(verdict.metrics)) {
      const config = m && gate[m.metric]
      const limit = config && 'maxRegression' in config ? config.maxRegression : undefined
      if (!m || m.status !== 'regression' || !limit || !(m.baseline > 0)) continue
      ;(before[id] ??= {})[m.metric] = { value: m.baseline, higher: metricInfo(m.metric).higherIsBetter, limit }
      moved.push(`${id} ${metricLabel(m.metric, m.stat)} ${formatDelta(m.delta)}`)
    }
  }
  const cells = Object.keys(before)
  if (!cells.length) return undefined
  const who = r.culprit ? `culprit ${r.culprit.slice(0, 7)}` : `${r.steps?.length ?? 0} steps`
  return {
    hardware: p.hardware,
    cells,
    title: `Regression on ${p.hardware}: ${moved.slice(0, 3).join(', ')} (${who})`.slice(0, 250),
    body: renderBisect([r], p.report),
    before,
  }
}
