/**
 * What the merge says of a cell's same-box A/B, by what its shard recorded (run/shard-ab.ts): an A/B the shard
 * ran or could not run stands as the judge left it, and a cell that wants one by the merge's verdict without any record says why none
 * ran, by the mode its shard's results file names. The bundle runs the shard workflow in test/e2e/shards-ab.test.ts.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cellJudge } from '../../src/compare/index.js'
import { loadPlan } from '../../src/config/index.js'
import type { Plan } from '../../src/core/plan.js'
import type { CellResult } from '../../src/core/results.js'
import { shardAb } from '../../src/run/shard-ab.js'
import { storedCell } from '../helpers/builders.js'

let plan: Plan

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'lbg-shard-ab-'))
  const yml = [
    'version: 1',
    'scenarios:',
    '  a: { input-tokens: 16, output-tokens: 16, concurrency: 1 }',
    'targets:',
    '  t: { engine: openai, launch: "exit 3", model: m }',
    '  off: { engine: openai, launch: "exit 3", model: m, ab: off }',
    '  attached: { engine: openai, url: "http://127.0.0.1:9", model: m }',
    '',
  ].join('\n')
  await writeFile(join(root, 'bench.yml'), yml)
  plan = await loadPlan('bench.yml', { cwd: root })
})

const figures = [{ decode: 50, ttft: 300 }]
const regressed = (id = 't/a', extra: Partial<CellResult> = {}) =>
  storedCell(id, figures, { verdict: { status: 'regression', metrics: {}, note: 'decode −20%' }, ...extra })

/** The merge's view of one cell: judged `judged`, read from its shard as `read` in a file of `mode`. */
function merged(judged: CellResult, mode: string | undefined, read: CellResult = judged): CellResult {
  const judge = cellJudge({ history: [] }, plan.targets)
  return shardAb([judged], { cells: [read], modes: new Map([[judged.id, mode]]) }, judge)[0]
}

describe('shardAb', () => {
  it.each([
    ['run', /^the shard ran mode: run, which only measures, so it judged nothing and ran no A\/B \(on a pull request/],
    ['update-baseline', /^the shard ran mode: update-baseline, which runs no A\/B \(on a pull request/],
    [undefined, /^its shard's results file records no mode \(an earlier release\) and no A\/B/],
  ])('a wanting cell whose shard ran mode %s: not run, and why', (mode, reason) => {
    const cell = merged(regressed(), mode)
    expect(cell.ab).toEqual({ status: 'not-run', reason: expect.stringMatching(reason) })
    expect(cell.verdict.status).toBe('regression')
    expect(cell.verdict.note).toMatch(/^decode −20%; same-box A\/B not run: .*; the stored-baseline verdict stands$/)
  })

  it('a shard that compared and wanted none: the merge says what each judged', () => {
    const shard = storedCell('t/a', figures, { verdict: { status: 'pass', metrics: {} } })
    expect(merged(regressed(), 'compare', shard).ab?.reason).toBe(
      'its shard judged it pass against the stored baseline and wanted none; judged again on merging, it looks regressed against the stored baseline',
    )
  })

  it('a cell with a record of its A/B (ran or not run) stays as the judge left it, and so does one wanting none', () => {
    // The judge says again why a shard's A/B did not run when it judges the cell anew (test/compare/cell-judge.test.ts).
    const notRun = regressed('t/a', { ab: { status: 'not-run', reason: 'ab-budget spent', baseMs: 5 } })
    expect(merged(notRun, 'compare')).toBe(notRun)
    const ran = regressed('t/a', { ab: { status: 'ran', base: 'b'.repeat(40) } })
    expect(merged(ran, 'compare')).toBe(ran)
    const passed = storedCell('t/a', figures)
    expect(merged(passed, 'run')).toBe(passed)
    // ab: off, and a target the run attaches to rather than launches (no A/B without a launch).
    for (const id of ['off/a', 'attached/a']) {
      const unwanted = regressed(id)
      expect(merged(unwanted, 'run')).toBe(unwanted)
    }
  })
})
