/**
 * Bisections through `node dist/index.js` (docs/bisect.md) on the box of test/helpers/bisect-box.ts, the cases around
 * the culprit: a commit whose engine exits at launch, skipped; `bisect: auto` after a creep on main, naming the span
 * as steps and marking them on the dashboard; a read-only token.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'

let github: FakeGitHub
beforeAll(async () => {
  github = await startFakeGitHub({ owner: 'o', repo: 'r' })
})
afterAll(async () => {
  await github?.close()
})
import type { HistoryFile, ResultsFile } from '../../src/core/results.js'
import { PROFILE } from '../helpers/ab-box.js'
import { bisect, history, mainRun, matrix, nothingLeft, scaledEntry } from '../helpers/bisect-box.js'
import { git, linearRepo } from '../helpers/git-origin.js'

describe('bisections around the culprit', () => {
  it('a probe commit whose engine exits at launch is skipped, and the culprit still found', async () => {
    // 8 commits, commit 7 slower: the halving measures commit 4 first, which does not launch.
    const repo = history(8, 7, [4])
    const run = await bisect(github, repo, 1)
    expect(run.code, run.stdout).toBe(0)
    const [record] = run.results.bisect!
    expect(record.skipped).toEqual([repo.shas[3]])
    expect(record.probes.find((p) => p.sign === 'skip')?.reason).toMatch(/PR launch 1 failed/)
    expect(record.culprit).toBe(repo.shas[6])
    expect(run.report).toContain('**Skipped**')
    nothingLeft(repo.checkout, run.runnerTemp)
  }, 600_000)

  it('bisect: auto: four merges each 2.5 % slower, the fourth main run creeps, and the span is named as steps', async () => {
    // A key of its own: another test's pushes stored their history under `box`.
    const hw = 'box-auto/history.json'
    const scales = [1, 0.975, 0.975 ** 2, 0.975 ** 3, 0.975 ** 4]
    const repo = linearRepo(
      'lbg-bisect-auto-',
      scales.map((scale, i) => ({
        'bench.yml': matrix(scale, undefined, ', bisect: auto'),
        'profiles/box.json': PROFILE,
        [`src/change-${i + 1}.txt`]: `${i + 1}\n`,
      })),
    )
    // Main ran at the first commit; its history is made eight such runs, then one for each of the next three merges.
    git(repo.checkout, 'checkout', '-q', repo.shas[0])
    const first = await mainRun(github, repo.checkout, repo.shas[0], { hardware: 'box-auto' })
    expect(first.code, first.stdout).toBe(0)
    const stored = JSON.parse(github.state.readFile('llm-bench-data', hw)!) as HistoryFile
    const entry = stored.entries.at(-1)!
    const at = (level: number, sha: string) => scaledEntry(entry, level, sha)
    const fake = (i: number) => `${'f'.repeat(38)}${String(i).padStart(2, '0')}`
    const entries = [
      ...Array.from({ length: 7 }, (_, i) => at(1, fake(i))),
      at(1, repo.shas[0]),
      ...[1, 2, 3].map((k) => at(scales[k], repo.shas[k])),
    ]
    github.state.writeFile('llm-bench-data', hw, JSON.stringify({ ...stored, entries }))
    git(repo.checkout, 'checkout', '-q', 'main')

    const runnerTemp = await mkdtemp(join(tmpdir(), 'lbg-runner-temp-'))
    const run = await mainRun(github, repo.checkout, repo.shas[4], { runnerTemp, hardware: 'box-auto' })
    const results = JSON.parse(await readFile(join(repo.checkout, 'main-out', 'results.json'), 'utf8')) as ResultsFile
    const [cell] = results.cells
    expect(
      cell.verdict.creep?.map((c) => [c.metric, c.since]),
      run.stdout,
    ).toEqual([['decode', repo.shas[0]]])
    // The alert fails the step, and the bisection it started in the same job names the four merges as steps.
    expect(run.code).toBe(1)
    const [record] = results.bisect!
    expect(record.good).toBe(repo.shas[0])
    expect(record.bad).toBe(repo.shas[4])
    expect(record.outcome, record.reason).toBe('steps')
    expect(record.culprit).toBeUndefined()
    expect(record.steps).toEqual(repo.shas.slice(1))
    expect(run.outputs.culprit ?? '').toBe('')
    const report = await readFile(join(repo.checkout, 'main-out', 'report.md'), 'utf8')
    expect(report).toContain('Creep on the default branch')
    expect(report).toContain('no single commit')
    expect(report).toContain('**Steps**')
    nothingLeft(repo.checkout, runnerTemp)
  }, 600_000)

  it('a read-only token: the culprit is named, and the report says the issue could not be written', async () => {
    // Two commits, the second slower: the ends' probe names it, with nothing between to halve.
    const repo = history(2, 2)
    github.inject.forbidComments('write')
    try {
      const run = await bisect(github, repo, 1)
      expect(run.code, run.stdout).toBe(0)
      const [record] = run.results.bisect!
      expect(record.culprit).toBe(repo.shas[1])
      expect(record.probes.map((p) => p.role)).toEqual(['ends'])
      expect(run.outputs.culprit).toBe(repo.shas[1])
      expect(record.issue).toMatchObject({ problem: expect.stringContaining('issues: write') })
      expect(run.report).toContain('The regression issue could not be written')
      expect(run.report).toContain('**Culprit**')
    } finally {
      github.inject.forbidComments(false)
    }
  }, 300_000)
})
