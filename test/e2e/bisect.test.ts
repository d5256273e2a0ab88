/**
 * `mode: bisect` through `node dist/index.js` (docs/bisect.md): a repository of first-parent commits checked out with
 * its history, each commit's matrix file setting the simulator's speed (`time-scale`), the box's speed shared by every
 * launch, and a loopback fake of the GitHub API for the culprit's pull request and the episode's issue.
 *
 * The simulator's decode step takes 25 ms of simulated time, so a launch's decode tok/s is 40 × time-scale, but for
 * the wall clock's lag: equal commits differ by lag alone (a few per cent at most on this machine), and a commit at
 * 0.88 is 12 % slower, past the 5 % limit by more than twice the band the 1.5 % noise floor gives two pairs (±2.9 %).
 */
import { readdirSync, readlinkSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import type { ChildProcess } from 'node:child_process'
import { tmpdir } from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryFile, ResultsFile } from '../../src/core/results.js'
import { onceStdout, runAction, type ActionRun } from '../helpers/action.js'
import { PROFILE, box } from '../helpers/ab-box.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { commitOnto, git, linearRepo, worktreeList } from '../helpers/git-origin.js'
import { isGone } from '../server/procs.js'

function matrix(timeScale: number, launch?: string, defaults = ''): string {
  return [
    'version: 1',
    'hardware: box',
    `defaults: { rounds: 3, discard: 1, confirm: 0, ready-timeout: 20s, request-timeout: 30s, quality: false, ab-max-launches: 4${defaults} }`,
    'gate:',
    '  decode: { max-regression: 5% }',
    'scenarios:',
    '  short: { input-tokens: 32, output-tokens: 24, concurrency: 2 }',
    'targets:',
    '  sim:',
    '    engine: sim',
    '    profile: profiles/box.json',
    `    time-scale: ${timeScale}`,
    ...(launch ? [`    launch: ${JSON.stringify(launch)}`] : []),
    '',
  ].join('\n')
}

/** `n` commits; commit `slowFrom` (1-based) and after run at 0.88; `broken` commits' engines exit at launch. */
function history(n: number, slowFrom: number | undefined, broken: readonly number[] = []) {
  return linearRepo(
    'lbg-bisect-',
    Array.from({ length: n }, (_, i) => {
      const at = i + 1
      const scale = slowFrom !== undefined && at >= slowFrom ? 0.88 : 1
      return {
        'bench.yml': matrix(scale, broken.includes(at) ? 'echo "engine failed to start" >&2; exit 3' : undefined),
        'profiles/box.json': PROFILE,
        [`src/change-${at}.txt`]: `${at}\n`,
      }
    }),
  )
}

let github: FakeGitHub
beforeAll(async () => {
  github = await startFakeGitHub({ owner: 'o', repo: 'r' })
})
afterAll(async () => {
  await github?.close()
})

interface Bisected extends ActionRun {
  results: ResultsFile
  report: string
  runnerTemp: string
}

async function bisect(
  repo: { checkout: string; shas: string[] },
  good: number,
  o: { bad?: number; onSpawn?: (child: ChildProcess) => void; runnerTemp?: string } = {},
): Promise<Bisected> {
  const runnerTemp = o.runnerTemp ?? (await mkdtemp(join(tmpdir(), 'lbg-runner-temp-')))
  const run = await runAction({
    cwd: repo.checkout,
    inputs: {
      config: 'bench.yml',
      mode: 'bisect',
      good: repo.shas[good - 1],
      ...(o.bad && { bad: repo.shas[o.bad - 1] }),
      'results-dir': 'out',
      'github-token': 'test-token',
    },
    env: { ...box(1, '590.10'), RUNNER_TEMP: runnerTemp, GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'o/r' },
    event: {
      name: 'workflow_dispatch',
      ref: 'refs/heads/main',
      sha: repo.shas.at(-1)!,
      payload: { repository: { default_branch: 'main', full_name: 'o/r' } },
    },
    timeoutMs: 600_000,
    onSpawn: o.onSpawn,
  })
  if (o.onSpawn) return { ...run, results: undefined as never, report: '', runnerTemp }
  const read = (name: string) => readFile(join(repo.checkout, 'out', name), 'utf8')
  const results = JSON.parse(await read('results.json')) as ResultsFile
  return { ...run, results, report: await read('report.md'), runnerTemp }
}

/** A push to main at the checkout's head: measures, writes the baseline, closes what it is back from. */
function mainRun(checkout: string, sha: string, o: { runnerTemp?: string; hardware?: string } = {}) {
  return runAction({
    cwd: checkout,
    inputs: {
      config: 'bench.yml',
      'results-dir': 'main-out',
      'github-token': 'test-token',
      hardware: o.hardware ?? 'box',
    },
    env: {
      ...box(1, '590.10'),
      GITHUB_API_URL: github.url,
      GITHUB_REPOSITORY: 'o/r',
      ...(o.runnerTemp && { RUNNER_TEMP: o.runnerTemp }),
    },
    event: {
      name: 'push',
      ref: 'refs/heads/main',
      sha,
      payload: { ref: 'refs/heads/main', repository: { default_branch: 'main', full_name: 'o/r' } },
    },
    timeoutMs: 600_000,
  })
}

/** Nothing of the bisection is left: no worktree under RUNNER_TEMP, none registered, no process running in one. */
function nothingLeft(checkout: string, runnerTemp: string): void {
  expect(readdirSync(runnerTemp).filter((n) => n.startsWith('llm-bench-gate-base-'))).toEqual([])
  expect(worktreeList(checkout)).toEqual([checkout])
  expect(processesIn(runnerTemp)).toEqual([])
}

/** Processes whose working directory is under `dir`. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir)
      } catch {
        return false
      }
    })
    .map(Number)
    .filter((pid) => !isGone(pid))
}

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
    const run = await bisect(repo, 1)
    expect(run.code, run.stdout).toBe(0)
    const [record] = run.results.bisect!
    expect(record.outcome, record.reason).toBe('culprit')
    expect(record.culprit).toBe(repo.shas[6])
    expect(run.outputs.culprit).toBe(repo.shas[6])
    expect(record.commits).toEqual(repo.shas)
    // Probes besides the ends: the halving's (against the good end), then the culprit against commit 6 and 12 against it.
    const besides = record.probes.filter((p) => p.role !== 'ends')
    expect(besides.length).toBeLessThanOrEqual(Math.ceil(Math.log2(11)) + 2)
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

    const again = await bisect(repo, 1)
    expect(again.results.bisect![0].culprit).toBe(repo.shas[6])
    expect(github.state.issues.filter((i) => i.labels.includes('llm-bench-regression'))).toHaveLength(1)
    expect(again.results.bisect![0].issue).toMatchObject({ action: expect.stringMatching(/updated|unchanged/) })

    // Main still at commit 12's speed: the episode stays open. A fix lands: the first main run back closes it.
    const number = issues[0].number
    const still = await mainRun(repo.checkout, repo.shas[11])
    expect(still.code, still.stdout).toBe(0)
    expect(github.state.issue(number)?.state).toBe('open')
    const fixed = commitOnto(repo.checkout, { 'bench.yml': matrix(1), 'src/fix.txt': 'fix\n' })
    const back = await mainRun(repo.checkout, fixed)
    expect(back.code, back.stdout).toBe(0)
    expect(github.state.issue(number)?.state).toBe('closed')
    const closing = github.state.comments.filter((c) => c.issue === number)
    expect(closing).toHaveLength(1)
    expect(closing[0].body).toContain(fixed.slice(0, 7))
  }, 900_000)

  it('a range whose ends measure the same: no culprit, "does not reproduce on this box"', async () => {
    const repo = history(4, undefined)
    const run = await bisect(repo, 1)
    expect(run.code, run.stdout).toBe(0)
    const [record] = run.results.bisect!
    expect(record.outcome).toBe('not-reproduced')
    expect(record.culprit).toBeUndefined()
    expect(run.outputs.culprit ?? '').toBe('')
    expect(record.probes.map((p) => p.role)).toEqual(['ends'])
    expect(run.report).toContain('does not reproduce on this box')
    nothingLeft(repo.checkout, run.runnerTemp)
  }, 300_000)

  it('a probe commit whose engine exits at launch is skipped, and the culprit still found', async () => {
    // 8 commits, commit 7 slower: the halving measures commit 4 first, which does not launch.
    const repo = history(8, 7, [4])
    const run = await bisect(repo, 1)
    expect(run.code, run.stdout).toBe(0)
    const [record] = run.results.bisect!
    expect(record.skipped).toEqual([repo.shas[3]])
    expect(record.probes.find((p) => p.sign === 'skip')?.reason).toMatch(/PR launch 1 failed/)
    expect(record.culprit).toBe(repo.shas[6])
    expect(run.report).toContain('**Skipped**')
    nothingLeft(repo.checkout, run.runnerTemp)
  }, 600_000)

  it('SIGKILL of the main step mid-bisection: after the post step no worktree, no process, only the checkout', async () => {
    const repo = history(6, 4)
    const runnerTemp = await mkdtemp(join(tmpdir(), 'lbg-runner-temp-'))
    let atKill = { worktrees: 0, processes: 0 }
    const run = await bisect(repo, 1, {
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
    const first = await mainRun(repo.checkout, repo.shas[0], { hardware: 'box-auto' })
    expect(first.code, first.stdout).toBe(0)
    const stored = JSON.parse(github.state.readFile('llm-bench-data', hw)!) as HistoryFile
    const entry = stored.entries.at(-1)!
    const at = (level: number, sha: string) => ({
      ...entry,
      sha,
      cells: Object.fromEntries(
        Object.entries(entry.cells).map(([id, metrics]) => [
          id,
          Object.fromEntries(
            Object.entries(metrics).map(([key, m]) =>
              key.startsWith('decode_tps')
                ? [key, { steady: m.steady * level, rounds: m.rounds.map((r) => r * level) }]
                : [key, m],
            ),
          ),
        ]),
      ),
    })
    const fake = (i: number) => `${'f'.repeat(38)}${String(i).padStart(2, '0')}`
    const entries = [
      ...Array.from({ length: 7 }, (_, i) => at(1, fake(i))),
      at(1, repo.shas[0]),
      ...[1, 2, 3].map((k) => at(scales[k], repo.shas[k])),
    ]
    github.state.writeFile('llm-bench-data', hw, JSON.stringify({ ...stored, entries }))
    git(repo.checkout, 'checkout', '-q', 'main')

    const runnerTemp = await mkdtemp(join(tmpdir(), 'lbg-runner-temp-'))
    const run = await mainRun(repo.checkout, repo.shas[4], { runnerTemp, hardware: 'box-auto' })
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
      const run = await bisect(repo, 1)
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
