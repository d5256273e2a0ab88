/**
 * One reference per table row after a same-box A/B, through `node dist/index.js`. The PR runs its target at 0.88 of
 * the base commit's speed on a box 15 % faster than when the baseline was stored, under another driver: against
 * the stored baseline every figure looks about 1 % better, against the base arm on this box decode is 12 % slower
 * and TPOT 13.6 % longer. The A/B decides the cell (a regression), so every Δ on its row — decode, TTFT, TPOT and
 * output, in the report's table and in the comment's — is against the base arm, and the row says so; a row that
 * put decode against the base arm beside TPOT against the stored baseline would read "decode −12 %, TPOT −1 %".
 */
import { beforeAll, expect, it } from 'vitest'
import { HEADLINE_METRICS, readMetric, type GatedMetric } from '../../src/core/metrics.js'
import type { CellResult } from '../../src/core/results.js'
import { formatNumber } from '../../src/core/format.js'
import { PROFILE, abMatrix, box, gitWorkspace, prRun, storedBaseline } from '../helpers/ab-box.js'

let baseline: string

beforeAll(async () => {
  baseline = await storedBaseline(abMatrix([1]))
}, 120_000)

/** GM(PR arms) / GM(base arms) − 1 of a metric, from the launches the results file records under the cell's `ab`. */
function armsDelta(cell: CellResult, metric: GatedMetric): number {
  const stat = cell.verdict.metrics[metric]?.stat ?? cell.verdict.reference?.[metric]?.stat ?? 'mean'
  const gm = (arm: 'base' | 'pr') => {
    const values = cell.ab!.arms!.filter((a) => a.arm === arm).map((a) => readMetric(a.metrics, metric, stat)!)
    return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length)
  }
  return gm('pr') / gm('base') - 1
}

/** The signed percentages `(−12.0%)` of a table row's figure columns, in column order. */
function rowDeltas(row: string): number[] {
  return [...row.matchAll(/\(([+−]?[\d.]+)%\)/g)].map((m) => Number(m[1].replace('−', '-')))
}

it('after an A/B every Δ on the cell’s row is against the base arm, and the row says so', async () => {
  const ws = gitWorkspace({
    base: { 'bench.yml': abMatrix([1]), 'profiles/box.json': PROFILE },
    head: { 'bench.yml': abMatrix([0.88]) },
  })
  const run = await prRun(ws, { 'baseline-file': baseline, 'results-dir': 'out' }, box(1.15, '590.10'))
  const [cell] = run.results.cells
  expect(cell.ab?.status, cell.verdict.note).toBe('ran')
  expect(cell.ab?.stored?.status).toBe('pass')
  expect(cell.verdict.status).toBe('regression')

  // The report's table: Status, Target, Scenario, Engine, Quant, then every headline metric.
  const row = run.report.split('\n').find((l) => l.startsWith('|') && l.includes('| sim-a |'))!
  expect(row, run.report).toContain('Δ vs base arm')
  const expected = HEADLINE_METRICS.map((m) => armsDelta(cell, m) * 100)
  const shown = rowDeltas(row)
  expect(shown).toHaveLength(HEADLINE_METRICS.length)
  shown.forEach((d, i) => expect(d, `${HEADLINE_METRICS[i]} in ${row}`).toBeCloseTo(expected[i], 0))
  // 0.88 of the base's speed: decode 12 % lower, TPOT 1/0.88 − 1 = 13.6 % longer; against the stored baseline both
  // would be about 1 % better.
  const at = (m: GatedMetric) => shown[HEADLINE_METRICS.indexOf(m)]
  expect(at('decode')).toBeLessThan(-8)
  expect(at('tpot')).toBeGreaterThan(8)
  expect(at('output-throughput')).toBeLessThan(-8)
  // The figure beside the Δ is the PR arms' decode, the one the A/B compared.
  expect(row).toContain(`${formatNumber(cell.verdict.metrics.decode!.current)} (`)

  // The comment's compact table: the cell, decode, TTFT, TPOT (no SLO, output did not move), why.
  const compact = run.comment.split('\n').find((l) => l.startsWith('|') && l.includes('**sim-a · short**'))!
  expect(compact, run.comment).toContain('Δ vs base arm')
  const columns: GatedMetric[] = ['decode', 'ttft', 'tpot']
  const compactShown = rowDeltas(compact).slice(0, columns.length)
  compactShown.forEach((d, i) =>
    expect(d, `${columns[i]} in ${compact}`).toBeCloseTo(armsDelta(cell, columns[i]) * 100, 0),
  )
}, 300_000)
