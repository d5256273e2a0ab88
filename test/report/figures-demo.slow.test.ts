/**
 * One set of numbers, on the demo as `npm run demo` runs it (fixtures/demo.yml against fixtures/demo-baseline.json),
 * through the pipeline in-process: every figure of the comment's tables and of report.md is the verdict's in
 * results.json at the digits shown, bold exactly where that metric's verdict failed; the why lines and the Verdicts
 * section say the verdict's values base → head; the leaderboard's Δ columns are the verdict's changes. The demo's
 * fault cell regresses and is confirmed by a re-measurement, so its verdict pools two measurements.
 */
import { cp, mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { ROOT } from '../helpers/root.js'
import { inProcessPipeline, readResultsFile } from '../helpers/in-process.js'
import { leaderboardDeltas, tableFigures, whyFigures } from '../helpers/report-figures.js'

let cwd: string
let results: ResultsFile
let comment: string
let report: string
let leaderboard: string

const pipeline = inProcessPipeline(() => cwd)

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-figures-'))
  for (const file of ['fixtures/demo.yml', 'fixtures/demo-baseline.json'])
    await cp(join(ROOT, file), join(cwd, file), { recursive: true })
  // As the CLI's `run --baseline-file` does: compare, and report the regression without failing.
  const run = await pipeline({
    mode: 'compare',
    failOnRegression: false,
    config: 'fixtures/demo.yml',
    baselineFile: 'fixtures/demo-baseline.json',
    resultsDir: 'out',
  })
  results = await readResultsFile(run.resultsFile)
  report = await readFile(run.reportFile, 'utf8')
  comment = await readFile(run.commentFile!, 'utf8')
  leaderboard = await readFile(join(dirname(run.resultsFile), 'leaderboard.html'), 'utf8')
  // The demo runs in real time, under a minute on a two-core machine.
}, 170_000)

describe('the demo’s report against its results file', () => {
  it('has the confirmed regression the figures must follow', () => {
    const fault = results.cells.filter((c) => c.verdict.status === 'regression')
    expect(fault.map((c) => c.target)).toEqual(['qwen36-35b-a3b-nvfp4-vllm-fault'])
    expect(fault[0].verdict.confirmed).toBeGreaterThanOrEqual(1)
    // Its figures no gate compares come from the same pooled rounds: every measurement's steady rounds.
    const steady = fault[0].rounds.filter((r) => r.steady).length
    expect(fault[0].pooled).toMatchObject({ measurements: fault[0].verdict.confirmed! + 1 })
    expect(fault[0].pooled!.rounds).toBeGreaterThan(steady)
    expect(report).not.toContain('· first measurement')
  })

  it.each([
    ['comment.md', () => comment],
    ['report.md', () => report],
  ])('every figure of the tables of %s is the verdict’s, bold exactly where it failed', (_, md) => {
    const { problems, compared, cellsShown } = tableFigures(md(), results)
    expect(problems).toEqual([])
    expect(cellsShown).toEqual(new Set(results.cells.map((c) => c.id)))
    const gated = results.cells.reduce((n, c) => n + ['decode', 'ttft'].filter((m) => m in c.verdict.metrics).length, 0)
    expect(compared).toBeGreaterThanOrEqual(gated)
  })

  it('the why lines and the Verdicts section say the verdict’s values, base → head', () => {
    for (const md of [comment, report]) {
      const { problems, compared } = whyFigures(md, results)
      expect(problems).toEqual([])
      expect(compared).toBeGreaterThanOrEqual(2)
    }
  })

  it('the leaderboard’s Δ columns are the verdict’s changes', () => {
    const { problems, compared } = leaderboardDeltas(leaderboard, results)
    expect(problems).toEqual([])
    expect(compared).toBe(2 * results.cells.length)
  })
})
