/**
 * A box for bisections through `node dist/index.js` (docs/bisect.md): a repository of first-parent commits checked
 * out with its history, each commit's matrix file setting the simulator's speed (`time-scale`), the box's speed shared
 * by every launch, a loopback fake of the GitHub API; and the checks that nothing of a bisection is left behind.
 *
 * The simulator's decode step takes 25 ms of simulated time, so a launch's decode tok/s is 40 × time-scale, but for
 * the wall clock's lag: equal commits differ by lag alone (a few per cent at most on this machine), and a commit at
 * 0.88 is 12 % slower, past the 5 % limit by more than twice the band the 1.5 % noise floor gives two pairs (±2.9 %).
 */
import { readdirSync, readlinkSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import type { ChildProcess } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { HistoryEntry, MetricSamples, ResultsFile } from '../../src/core/results.js'
import { runAction, type ActionRun } from './action.js'
import { PROFILE, box } from './ab-box.js'
import type { FakeGitHub } from './fake-github.js'
import { linearRepo, worktreeList } from './git-origin.js'
import { isGone } from '../server/procs.js'

export function matrix(timeScale: number, launch?: string, defaults = ''): string {
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
export function history(n: number, slowFrom: number | undefined, broken: readonly number[] = []) {
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

export interface Bisected extends ActionRun {
  results: ResultsFile
  report: string
  runnerTemp: string
}

export async function bisect(
  github: FakeGitHub,
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
export function mainRun(
  github: FakeGitHub,
  checkout: string,
  sha: string,
  o: { runnerTemp?: string; hardware?: string } = {},
) {
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
export function nothingLeft(checkout: string, runnerTemp: string): void {
  expect(readdirSync(runnerTemp).filter((n) => n.startsWith('llm-bench-gate-base-'))).toEqual([])
  expect(worktreeList(checkout)).toEqual([checkout])
  expect(processesIn(runnerTemp)).toEqual([])
}

/** Processes whose working directory is under `dir`. */
export function processesIn(dir: string): number[] {
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

/** `entry` as a run at `level` times its decode figures would have left it, under `sha`. */
export function scaledEntry(entry: HistoryEntry, level: number, sha: string): HistoryEntry {
  const scale = (m: MetricSamples) => ({ steady: m.steady * level, rounds: m.rounds.map((r) => r * level) })
  return {
    ...entry,
    sha,
    cells: Object.fromEntries(
      Object.entries(entry.cells).map(([id, metrics]) => [
        id,
        Object.fromEntries(
          Object.entries(metrics).map(([key, m]) => [key, key.startsWith('decode_tps') ? scale(m) : m]),
        ),
      ]),
    ),
  }
}
