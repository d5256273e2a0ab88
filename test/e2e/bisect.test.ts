/**
 * `mode: bisect` through `node dist/index.js` (docs/bisect.md) on the box of test/helpers/bisect-box.ts: the culprit
 * named in the probes the halving allows, with its pull request and one issue updated in place, closed by the first
 * main run back within the limit; ends that measure the same; a SIGKILL mid-probe that leaves nothing behind.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'

let github: FakeGitHub
beforeAll(async () => {
  github = await startFakeGitHub({ owner: 'o', repo: 'r' })
})
afterAll(async () => {
  await github?.close()
})
import { onceStdout, runAction } from '../helpers/action.js'
import { bisect, history, mainRun, matrix, nothingLeft, processesIn } from '../helpers/bisect-box.js'
import { commitOnto, worktreeList } from '../helpers/git-origin.js'

describe('mode: bisect', () => {
  it('12 commits, commit 7 12 % slower: culprit 7 in ⌈log2 11⌉ + 1 probes besides the ends; one issue, updated by a second run', async () => {
    const repo = history(12, 7)
    github.state.commitPulls.set(repo.shas[6], [
      {
        number: 57,
        html_url: 'https://github.example/o/r/pull/57',
        title: 'Faster <sampler>',
        merge_commit_sha: repo.shas[6],
        merged_at: '2026-12-01T00:00:00Z',
      },
    ])
    const run = await bisect(github, repo, 1)
    expect(run.code, run.stdout).toBe(0)
    const [record] = run.results.bisect!
    expect(record.outcome, record.reason).toBe('culprit')
    expect(record.culprit).toBe(repo.shas[6])
    expect(run.outputs.culprit).toBe(repo.shas[6])
    expect(record.commits).toEqual(repo.shas)
    // Probes besides the ends: the halving's (against the good end), then the culprit against commit 6 and 12 against it.
    const besides = record.probes.filter((p) => p.role !== 'ends')
    expect(besides.length).toBeLessThanOrEqual(Math.ceil(Math.log2(11)) + 1)
    const measured = new Set(
      besides.flatMap((p) => [p.sha, p.against]).filter((s) => s !== repo.shas[0] && s !== repo.shas[11]),
    )
    expect(measured.size).toBeLessThanOrEqual(Math.ceil(Math.log2(11)) + 1)
    // The report lists every probe, the culprit with its pull request and the change on each side of it.
    for (const p of record.probes) expect(run.report).toContain(`/commit/${p.sha}`)
    expect(run.report.match(/^\| \d+ \| (ends|search|step|rest) \|/gm)).toHaveLength(record.probes.length)
    expect(run.report).toContain('**Culprit**')
    expect(run.report).toContain('#57 Faster &lt;sampler&gt;')
    expect(run.report).toMatch(/- at it: .*decode tok\/s −1\d\.\d% ± /)
    expect(run.report).toMatch(/- engine counters that moved with it: /)
    const issues = github.state.issues.filter((i) => i.labels.includes('llm-bench-regression'))
    expect(issues).toHaveLength(1)
    expect(issues[0].body).toContain(repo.shas[6].slice(0, 7))
    expect(record.issue).toMatchObject({ action: 'created' })
    nothingLeft(repo.checkout, run.runnerTemp)

    const again = await bisect(github, repo, 1)
    expect(again.results.bisect![0].culprit).toBe(repo.shas[6])
    expect(github.state.issues.filter((i) => i.labels.includes('llm-bench-regression'))).toHaveLength(1)
    expect(again.results.bisect![0].issue).toMatchObject({ action: expect.stringMatching(/updated|unchanged/) })

    // Main still at commit 12's speed: the episode stays open. A fix lands: the first main run back closes it.
    const number = issues[0].number
    const still = await mainRun(github, repo.checkout, repo.shas[11])
    expect(still.code, still.stdout).toBe(0)
    expect(github.state.issue(number)?.state).toBe('open')
    const fixed = commitOnto(repo.checkout, { 'bench.yml': matrix(1), 'src/fix.txt': 'fix\n' })
    const back = await mainRun(github, repo.checkout, fixed)
    expect(back.code, back.stdout).toBe(0)
    expect(github.state.issue(number)?.state).toBe('closed')
    const closing = github.state.comments.filter((c) => c.issue === number)
    expect(closing).toHaveLength(1)
    expect(closing[0].body).toContain(fixed.slice(0, 7))
  }, 900_000)

  it('a range whose ends measure the same: no culprit, "does not reproduce on this box"', async () => {
    const repo = history(4, undefined)
    const run = await bisect(github, repo, 1)
    expect(run.code, run.stdout).toBe(0)
    const [record] = run.results.bisect!
    expect(record.outcome).toBe('not-reproduced')
    expect(record.culprit).toBeUndefined()
    expect(run.outputs.culprit ?? '').toBe('')
    expect(record.probes.map((p) => p.role)).toEqual(['ends'])
    expect(run.report).toContain('does not reproduce on this box')
    nothingLeft(repo.checkout, run.runnerTemp)
  }, 300_000)

  it('SIGKILL of the main step mid-bisection: after the post step no worktree, no process, only the checkout', async () => {
    const repo = history(6, 4)
    const runnerTemp = await mkdtemp(join(tmpdir(), 'lbg-runner-temp-'))
    let atKill = { worktrees: 0, processes: 0 }
    const run = await bisect(github, repo, 1, {
      runnerTemp,
      onSpawn: (child) =>
        onceStdout(child, /A\/B PR launch 1/, async () => {
          // The PR launch's engine is spawned right after the line: killed once it runs in its worktree.
          for (let i = 0; i < 500 && !processesIn(runnerTemp).length; i++) await delay(20)
          atKill = { worktrees: worktreeList(repo.checkout).length - 1, processes: processesIn(runnerTemp).length }
          child.kill('SIGKILL')
        }),
    })
    expect(run.code).toBeNull()
    // At the kill, the good and bad ends were checked out and the base launch's engine was running in one.
    expect(atKill.worktrees).toBe(2)
    expect(atKill.processes).toBeGreaterThan(0)
    const post = await runAction({
      cwd: repo.checkout,
      inputs: { config: 'bench.yml' },
      env: { RUNNER_TEMP: runnerTemp },
      state: { ...run.state, isPost: 'true' },
    })
    expect(post.code, post.stdout).toBe(0)
    nothingLeft(repo.checkout, runnerTemp)
  }, 300_000)
})
