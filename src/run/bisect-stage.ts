/**
 * The bisection stages of a run (docs/bisect.md): `mode: bisect`, and `bisect: auto` after a default-branch run that
 * alerted. Each range is bisected under the run's guard (bisect.ts), then written and told to GitHub
 * (bisect-publish.ts); after `bisect: auto`, this run's history entry gains what the bisection named.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BisectRecord } from '../core/bisect-record.js'
import type { BoundedGitHub } from '../core/github-port.js'
import type { Plan } from '../core/plan.js'
import { redacted } from '../core/redact.js'
import type { ResultsFile } from '../core/results.js'
import { createRunGuard, makeRunId } from '../server/index.js'
import { autoRanges, rangePlan } from './auto-bisect.js'
import { runBisect } from './bisect.js'
import { publishBisect } from './bisect-publish.js'
import { repositoryUrl, type RunContext } from './context.js'
import { detectHardware, hardwareKey } from './hardware.js'
import type { PipelineDeps } from './pipeline.js'
import { maybeWriteBaseline, type PipelineResult, type Publication } from './publish.js'

/** What the bisection stages need of the run around them. */
export interface BisectRun {
  cwd: string
  resultsDir: string
  signal: AbortSignal
  github?: BoundedGitHub
  meta(hardware: string): ResultsFile['run']
}

/** `mode: bisect`: each target's commits bisected under the run's guard (bisect.ts), then the report and GitHub. */
export async function bisectPlan(plan: Plan, run: BisectRun, deps: PipelineDeps): Promise<PipelineResult> {
  const { options } = deps
  const hardware = await hardwareKey(options.hardware, plan.hardware, deps.detectHardware ?? (() => detectHardware()))
  const records = await bisectRanges([{ plan, good: options.good, bad: options.bad, only: options.only }], run, deps)
  return publishBisect(publication(records, plan, hardware, run, deps), {
    log: deps.log,
    github: run.github,
    onOutputs: deps.onOutputs,
  })
}

/** What the bisection's files are written from. */
function publication(records: BisectRecord[], plan: Plan, hardware: string, run: BisectRun, deps: PipelineDeps) {
  const meta = run.meta(hardware)
  return { records, plan, hardware, resultsDir: run.resultsDir, meta, report: bisectContext(deps.context) }
}

/**
 * `bisect: auto` after a default-branch run wrote its files: the bisections its alerts ask for (auto-bisect.ts),
 * added to its results file and report; the run's own outcome stands, with the culprit.
 */
export async function bisectAfter(
  plan: Plan,
  alerted: Publication,
  published: PipelineResult,
  run: BisectRun,
  deps: PipelineDeps,
): Promise<PipelineResult> {
  const ranges = run.signal.aborted ? [] : autoRanges(plan, alerted.results, alerted.history ?? [])
  if (!ranges.length) return published
  const { hardware } = alerted
  deps.log.info(`bisect: auto: ${ranges.map((r) => `${r.target} from ${r.good.slice(0, 7)}`).join('; ')}`)
  const wanted = ranges.map((r) => ({ plan: rangePlan(plan, r), good: r.good, bad: '', only: r.cells.join(',') }))
  const records = await bisectRanges(wanted, run, deps)
  const { resultsFile: _f, reportFile: _r, summary: report, ...outcome } = published
  return publishBisect(
    {
      ...publication(records, plan, hardware, run, deps),
      after: { results: redacted(alerted.results), report, outcome },
    },
    {
      log: deps.log,
      github: run.github,
      onOutputs: deps.onOutputs,
      // The history entry of this run gains what the bisection named: the dashboard marks it (merge.ts, dashboard.ts).
      onRecords: async (bisect) => {
        const failed = await maybeWriteBaseline(
          { ...alerted, results: { ...alerted.results, bisect } },
          { ...deps, github: run.github },
        )
        if (failed) deps.log.warn(`the culprit was not marked on the dashboard: ${failed}`)
      },
    },
  )
}

/** Each range bisected in turn under the run's guard (or one of its own, closed at the end). */
async function bisectRanges(
  ranges: Array<{ plan: Plan; good: string; bad: string; only: string }>,
  run: BisectRun,
  deps: PipelineDeps,
): Promise<BisectRecord[]> {
  const { log, context } = deps
  const guard = deps.guard ?? createRunGuard({ runId: makeRunId(), log })
  const records: BisectRecord[] = []
  try {
    for (const r of ranges)
      records.push(
        ...(await runBisect({
          ...r,
          eventSha: context.sha,
          cwd: run.cwd,
          tempDir: deps.tempDir ?? tmpdir(),
          logDir: join(run.resultsDir, 'logs'),
          signal: run.signal,
          log,
          guard,
          onSpawn: deps.onSpawn,
          readMemory: deps.readMemory,
        })),
      )
  } finally {
    if (!deps.guard) await guard.close()
  }
  return records
}

function bisectContext(context: RunContext) {
  return { repoUrl: repositoryUrl(context), runUrl: context.runUrl || undefined }
}
