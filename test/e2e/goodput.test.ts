/**
 * Goodput end to end, through the bundled action, on a loopback fake engine (vLLM dialect) whose chunks come every
 * `--itl-ms`: 16 tokens a request, so a request's TPOT is its ITL give or take the timers' lateness over 15 gaps.
 * The base streams at 20 ms, the PR at 40 ms, and the scenarios' bounds sit between and far above:
 *
 * - `tight` (`slo: { tpot: 30ms }`): every base request is good, no PR request is: goodput 100 % → 0 %, a drop past
 *   twice the 5-point limit, so the cell fails on goodput alone (decode is not gated here) and the run exits 1;
 * - `loose` (`tpot: 200ms, e2e: 10s`): every request of both sides is good, 100 % → 100 %, a pass;
 * - `plain` (no slo): no goodput at all, and nothing undecided for its lack.
 *
 * A second PR run at the base's 20 ms passes everything. A timer would have to fire 150 ms late on one chunk and on
 * time on another of the same request to move a TPOT across its bound.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { CellResult } from '../../src/core/results.js'
import { runPrAction } from '../helpers/action.js'
import { fakeLaunch } from '../engines/fake.js'

function config(itlMs: number): string {
  const launch = fakeLaunch('vllm', `--ttft-ms 5 --itl-ms ${itlMs}`)
  return [
    'version: 1',
    'defaults: { rounds: 2, discard: 1, confirm: 1, ready-timeout: 20s, request-timeout: 20s, quality: false, ab: off }',
    // TTFT only, and far from what moves: goodput decides these cells.
    'gate: { ttft: { max-regression: 50%, min-delta: 200ms } }',
    'scenarios:',
    '  tight: { input-tokens: 16, output-tokens: 16, concurrency: 4, slo: { tpot: 30ms } }',
    '  loose: { input-tokens: 16, output-tokens: 16, concurrency: 4, slo: { tpot: 200ms, e2e: 10s } }',
    '  plain: { input-tokens: 16, output-tokens: 16, concurrency: 4 }',
    'targets:',
    `  fake: { engine: vllm, launch: ${JSON.stringify(launch)} }`,
    '',
  ].join('\n')
}

const byId = (cells: readonly CellResult[], id: string) => cells.find((c) => c.id === id)!

let cwd: string
let base: Awaited<ReturnType<typeof runPrAction>>
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-goodput-e2e-'))
  await writeFile(join(cwd, 'base.yml'), config(20))
  await writeFile(join(cwd, 'slow.yml'), config(40))
  base = await runPrAction({ cwd, config: 'base.yml', out: 'base' })
}, 120_000)

describe('goodput (bundled action, fake vLLM engine)', () => {
  it('records goodput per round and in the steady state only for the cells with an slo', () => {
    expect(base.code, base.stdout).toBe(0)
    for (const id of ['fake/tight', 'fake/loose']) {
      const cell = byId(base.results.cells, id)
      expect(cell.workload.slo).toBeDefined()
      expect(cell.metrics!.goodput, id).toBe(1)
      expect(cell.metrics!.request_goodput).toBeGreaterThan(0)
      for (const r of cell.rounds) expect(r.metrics.goodput).toBe(1)
    }
    const plain = byId(base.results.cells, 'fake/plain')
    expect(plain.metrics).not.toHaveProperty('goodput')
    expect(plain.workload).not.toHaveProperty('slo')
  })

  it('a PR whose TPOT crosses the bound drops goodput 100 % → 0 % and fails on it, named', async () => {
    const pr = await runPrAction({ cwd, config: 'slow.yml', out: 'slow', baseline: 'base/results.json' })
    expect(pr.code, pr.stdout).toBe(1)
    const tight = byId(pr.results.cells, 'fake/tight')
    expect(tight.verdict.status).toBe('regression')
    expect(tight.verdict.metrics.goodput).toMatchObject({ status: 'regression', baseline: 1, current: 0 })
    expect(tight.verdict.metrics.goodput!.reason).toMatch(
      /^goodput 100% → 0% \(−100 points\) \(limit 5 points, noise ±[\d.]+ points\): more than twice the limit$/,
    )
    // TPOT doubled, but decode is not in this gate: goodput alone fails the cell.
    expect(tight.verdict.metrics.decode).toBeUndefined()
    expect(pr.report).toMatch(/^- 🔴 \*\*fake\/tight\*\*: goodput 100% → 0% \(−100 points\) \(limit 5 points/m)
    // Other test files beside this one may load the box: the status then carries its mark, the verdict stands.
    expect(pr.report).toMatch(
      /\| 🔴 regression(?: · ⚠️ box disturbed)? \| fake \| tight \|[^\n]* · \*\*goodput 0% \(−100 pt\)\*\* \|/,
    )

    const loose = byId(pr.results.cells, 'fake/loose')
    expect(loose.verdict.metrics.goodput).toMatchObject({ status: 'pass', baseline: 1, current: 1 })
    expect(loose.verdict.status).toBe('pass')
    const plain = byId(pr.results.cells, 'fake/plain')
    expect(plain.verdict.metrics.goodput).toBeUndefined()
    expect(plain.verdict.status).toBe('pass')

    const page = await readFile(join(cwd, 'slow', 'leaderboard.html'), 'utf8')
    expect(page).toContain('<button type="button">Goodput</button>')
    expect(page).toContain('<span title="SLO: TPOT ≤ 30ms">0%</span>')
  }, 120_000)

  it('the same speed as the base passes, goodput 100 % on both sides', async () => {
    const same = await runPrAction({ cwd, config: 'base.yml', out: 'same', baseline: 'base/results.json' })
    expect(same.code, same.stdout).toBe(0)
    for (const id of ['fake/tight', 'fake/loose'])
      expect(byId(same.results.cells, id).verdict.metrics.goodput, id).toMatchObject({
        status: 'pass',
        baseline: 1,
        current: 1,
      })
    expect(same.report).toMatch(/ · goodput 100% \(0 pt\) \|/)
  }, 120_000)
})
