/**
 * The data branch end to end: three baseline updates through the bundled action against the GitHub API
 * stand-in. Each update is exactly one commit carrying the baseline, the history, the hardware dashboard
 * and the root index; a writer whose commit lands between the action's read and its ref update is merged,
 * not overwritten; another key's malformed baseline never blocks this key's update.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryFile, ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { startScheduledServer } from '../../harness/scheduled-server.js'

const BRANCH = 'llm-bench-data'
const FOUR = ['hw/baseline.json', 'hw/history.json', 'hw/index.html', 'index.html']

let github: FakeGitHub
let cwd: string

beforeAll(async () => {
  github = await startFakeGitHub()
  cwd = await mkdtemp(join(tmpdir(), 'lbg-store-'))
})
afterAll(async () => {
  await github?.close()
})

async function update(sha: string) {
  const engine = await startScheduledServer({ ttftMs: 60, intervalMs: 15 })
  try {
    const config = [
      'version: 1',
      'defaults: { rounds: 2, discard: 1, ready-timeout: 10s, request-timeout: 30s, quality: false }',
      'scenarios:',
      '  short: { input-tokens: 32, output-tokens: 8, concurrency: 2 }',
      'targets:',
      '  loopback:',
      '    engine: openai',
      `    url: ${engine.url}`,
      '    model: scheduled',
      '',
    ]
    await writeFile(join(cwd, 'bench.yml'), config.join('\n'))
    const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }
    return await runAction({
      cwd,
      // The store is the subject: each update measures the same schedule over 105 ms decode windows, which a loaded
      // runner's late wake-ups move by several per cent, enough for the built-in 5 % gate to call a regression and
      // fail the step. A regression does not fail these runs; a store that cannot be read or written still does
      // (fail-on-error).
      inputs: {
        config: 'bench.yml',
        'github-token': 'test-token',
        hardware: 'hw',
        'results-dir': 'out',
        'fail-on-regression': 'false',
      },
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'octo-org/octo-repo' },
      event: { name: 'push', ref: 'refs/heads/main', sha, payload: { ref: 'refs/heads/main', repository } },
    })
  } finally {
    await engine.close()
  }
}

/** Paths a commit adds or changes against its first parent. */
function changedPaths(sha: string): string[] {
  const commit = github.state.commits.get(sha)!
  const before = commit.parents.length ? github.state.files(commit.parents[0]) : new Map<string, string>()
  return [...github.state.files(sha)]
    .filter(([path, blob]) => before.get(path) !== blob)
    .map(([path]) => path)
    .sort()
}

describe('baseline updates on the data branch', () => {
  it('three updates: one commit each with all four files; a writer in between is merged, not overwritten', async () => {
    const shas = ['1'.repeat(40), '2'.repeat(40), '3'.repeat(40)]
    const ours: string[] = []
    for (const [i, sha] of shas.entries()) {
      const before = github.state.head(BRANCH)
      let writer: string | undefined
      if (i === 1) {
        // Another job lands its own cell and another hardware key after this run read the branch.
        github.inject.beforeRefUpdates(1, () => {
          const stored = JSON.parse(github.state.readFile(BRANCH, 'hw/baseline.json')!) as ResultsFile
          const other = { ...stored.cells[0], id: 'other/short', target: 'other' }
          github.state.writeFile(
            BRANCH,
            'hw/baseline.json',
            JSON.stringify({ ...stored, cells: [...stored.cells, other] }),
            'other writer',
          )
          writer = github.state.writeFile(
            BRANCH,
            'gpu/baseline.json',
            JSON.stringify({ ...stored, run: { ...stored.run, hardware: 'gpu' } }),
            'other writer',
          )
          writer = github.state.head(BRANCH)
        })
      }
      const run = await update(sha)
      expect(run.code, run.stdout + run.stderr).toBe(0)
      const head = github.state.commits.get(github.state.head(BRANCH)!)!
      ours.push(head.sha)
      // Exactly one new commit of ours on top of what was there (the other writer's commit, when it wrote).
      expect(head.parents).toEqual([writer ?? before ?? head.parents[0]])
      expect(head.message).toContain(`@ ${sha.slice(0, 7)}`)
      expect(changedPaths(head.sha)).toEqual(FOUR)
      if (i === 0) expect(github.state.commits.get(head.parents[0])!.parents).toEqual([]) // the orphan branch's first commit
    }
    // On the branch's history (the commit refused at the conflict never landed): the orphan, our three, the writer's two.
    const chain: string[] = []
    for (let c = github.state.head(BRANCH); c; c = github.state.commits.get(c)!.parents[0]) chain.push(c)
    const onBranch = chain.map((c) => github.state.commits.get(c)!)
    expect(
      onBranch
        .filter((c) => c.message.startsWith('llm-bench-gate: baseline'))
        .map((c) => c.sha)
        .reverse(),
    ).toEqual(ours)
    expect(onBranch.map((c) => c.message.split(' ')[0])).toEqual([
      'llm-bench-gate:',
      'llm-bench-gate:',
      'other',
      'other',
      'llm-bench-gate:',
      'Create',
    ])

    const baseline = JSON.parse(github.state.readFile(BRANCH, 'hw/baseline.json')!) as ResultsFile
    expect(baseline.cells.map((c) => c.id).sort()).toEqual(['loopback/short', 'other/short'])
    expect(baseline.run.sha).toBe(shas[2])
    const history = JSON.parse(github.state.readFile(BRANCH, 'hw/history.json')!) as HistoryFile
    expect(history.entries.map((e) => e.sha)).toEqual(shas)
    expect(github.state.readFile(BRANCH, 'gpu/baseline.json')).toBeDefined()
    const root = github.state.readFile(BRANCH, 'index.html')!
    expect(root).toContain('href="gpu/index.html"')
    expect(root).toContain('href="hw/index.html"')
    const page = github.state.readFile(BRANCH, 'hw/index.html')!
    expect(page).toContain('Trends over 3 default-branch runs')
    expect(github.state.log.filter((r) => r.method === 'PUT')).toEqual([])
  }, 120_000)

  it("another key's baseline.json of the wrong shape does not stop this key's update", async () => {
    // Valid JSON, wrong types where the root page reads: a number for the sha, an object for the date.
    github.state.writeFile(
      BRANCH,
      'broken/baseline.json',
      JSON.stringify({ run: { sha: 123, finishedAt: {} }, cells: 'x' }),
      'other writer',
    )
    const run = await update('e'.repeat(40))
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/baseline for hw updated/)
    const head = github.state.commits.get(github.state.head(BRANCH)!)!
    expect(head.message).toContain('@ eeeeeee')
    const root = github.state.readFile(BRANCH, 'index.html')!
    expect(root).toContain('href="broken/index.html"')
    expect(root).toContain('href="hw/index.html"')
  }, 60_000)
})
