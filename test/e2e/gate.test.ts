/**
 * The gate end to end: the bundled action, a loopback engine on an exact schedule, and a fake
 * GitHub REST API on loopback. A push to main writes the baseline on a new orphan branch; PR
 * runs compare against it, keep exactly one comment, and never touch the data branch.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryFile, ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { startScheduledServer, type ScheduledServerOptions } from '../../harness/scheduled-server.js'

const PR = 7
const MARKER = '<!-- llm-bench-gate:bench.yml -->'
const BASE: ScheduledServerOptions = { ttftMs: 100, intervalMs: 20 }

let github: FakeGitHub
let cwd: string

beforeAll(async () => {
  github = await startFakeGitHub()
  cwd = await mkdtemp(join(tmpdir(), 'lbg-gate-'))
})
afterAll(async () => {
  await github?.close()
})

/** One run of the action against an engine with the given schedule. */
async function gateRun(schedule: ScheduledServerOptions, event: 'push' | 'pr') {
  const engine = await startScheduledServer(schedule)
  try {
    await writeFile(
      join(cwd, 'bench.yml'),
      [
        'version: 1',
        // No quality probe (2.6 s of each run's 5 s): the gate and its comment are the subject here, and
        // test/e2e/quality.test.ts covers the probe through the bundle.
        'defaults: { rounds: 3, discard: 1, ready-timeout: 10s, request-timeout: 30s, quality: false }',
        'gate:',
        '  decode: { max-regression: 5% }',
        '  ttft: { max-regression: 10%, min-delta: 50ms, stat: mean }',
        'scenarios:',
        '  short: { input-tokens: 32, output-tokens: 16, concurrency: 2 }',
        'targets:',
        '  loopback:',
        '    engine: openai',
        `    url: ${engine.url}`,
        '    model: scheduled',
        '',
      ].join('\n'),
    )
    const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }
    return await runAction({
      cwd,
      inputs: { config: 'bench.yml', 'github-token': 'test-token', hardware: 'loopback-hw', 'results-dir': 'out' },
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'octo-org/octo-repo' },
      event:
        event === 'push'
          ? { name: 'push', ref: 'refs/heads/main', payload: { ref: 'refs/heads/main', repository } }
          : {
              name: 'pull_request',
              ref: `refs/pull/${PR}/merge`,
              payload: { pull_request: { number: PR }, repository },
            },
    })
  } finally {
    await engine.close()
  }
}

const ours = () => github.state.commentsOn(PR).filter((c) => c.body.includes(MARKER))

describe('baseline on merge, gate on PRs', () => {
  // Was "through two 409s" of contents-API PUTs; an update is now one commit, and a conflict is another
  // writer moving the branch before the ref update.
  it('push to main writes the baseline on a new orphan branch, through two conflicting writers', async () => {
    expect(github.state.head('llm-bench-data')).toBeUndefined()
    let n = 0
    github.inject.beforeRefUpdates(2, () => github.state.writeFile('llm-bench-data', 'notes.txt', `note ${n++}`))
    const run = await gateRun(BASE, 'push')
    expect(run.code, run.stdout).toBe(0)
    const head = github.state.head('llm-bench-data')!
    expect(head).toBeDefined()
    // The data branch's first commit has no parents: an orphan, unrelated to main.
    let commit = github.state.commits.get(head)!
    while (commit.parents.length) commit = github.state.commits.get(commit.parents[0])!
    expect(github.state.head('main')).not.toBe(commit.sha)
    const baseline = JSON.parse(github.state.readFile('llm-bench-data', 'loopback-hw/baseline.json')!) as ResultsFile
    expect(baseline.cells.map((c) => c.id)).toEqual(['loopback/short'])
    const history = JSON.parse(github.state.readFile('llm-bench-data', 'loopback-hw/history.json')!) as HistoryFile
    expect(history.entries).toHaveLength(1)
    const conflicts = github.state.log.filter((r) => r.method === 'PATCH' && r.status === 422)
    expect(conflicts).toHaveLength(2)
    expect(github.state.readFile('llm-bench-data', 'notes.txt')).toBe('note 1')
    expect(ours()).toHaveLength(0)
  })

  it('a PR with the same speed passes with one comment; 150 other comments do not hide it', async () => {
    github.seedComments(PR, 150)
    const before = github.state.head('llm-bench-data')
    const run = await gateRun(BASE, 'pr')
    expect(run.code, run.stdout).toBe(0)
    expect(run.outputs.verdict).toBe('pass')
    expect(ours()).toHaveLength(1)
    expect(run.outputs['comment-url']).toMatch(new RegExp(`/pull/${PR}#issuecomment-${ours()[0].id}$`))
    expect(github.state.head('llm-bench-data')).toBe(before)
  })

  it('decode 20 % slower fails with verdict=regression and updates the same comment', async () => {
    const before = github.state.head('llm-bench-data')
    const id = ours()[0].id
    const run = await gateRun({ ...BASE, intervalMs: 25 }, 'pr')
    expect(run.code, run.stdout).toBe(1)
    expect(run.outputs.verdict).toBe('regression')
    expect(run.outputs.regressions).toBe('1')
    expect(ours()).toHaveLength(1)
    expect(ours()[0].id).toBe(id)
    expect(ours()[0].body).toMatch(/regress/i)
    expect(ours()[0].body).toMatch(/decode/i)
    expect(run.stdout).toMatch(/re-measuring to confirm/)
    expect(github.state.head('llm-bench-data')).toBe(before)
  })

  it('TTFT 60 % higher fails', async () => {
    const before = github.state.head('llm-bench-data')
    const run = await gateRun({ ...BASE, ttftMs: 160 }, 'pr')
    expect(run.code, run.stdout).toBe(1)
    expect(run.outputs.verdict).toBe('regression')
    expect(ours()).toHaveLength(1)
    expect(ours()[0].body).toMatch(/TTFT/)
    expect(github.state.head('llm-bench-data')).toBe(before)
  })

  it('a 403 on comments is a warning: the step passes or fails on the numbers alone', async () => {
    github.inject.forbidComments('all')
    try {
      const same = await gateRun(BASE, 'pr')
      expect(same.code, same.stdout).toBe(0)
      expect(same.stdout).toMatch(/::warning::.*comment/i)
      expect(same.summary).toContain('loopback')
      const slower = await gateRun({ ...BASE, intervalMs: 25 }, 'pr')
      expect(slower.code).toBe(1)
      expect(slower.outputs.verdict).toBe('regression')
    } finally {
      github.inject.forbidComments(false)
    }
  })
})
