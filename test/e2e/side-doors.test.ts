/**
 * Side doors that used to pass a regression, through the bundled action, a loopback engine on an exact
 * schedule and a fake GitHub: a target renamed in the same PR that makes it slower, a scenario whose
 * workload changed under the same id, a renamed cell that cannot be paired, and a PR that moves the
 * hardware key. None of them may read as a clean pass.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryFile, ResultsFile } from '../../src/core/results.js'
import { workloadDigest } from '../../src/core/workload.js'
import { runAction } from '../helpers/action.js'
import { WAKE_MS } from '../helpers/load.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { startScheduledServer, type ScheduledServerOptions } from '../../harness/scheduled-server.js'

const PR = 9
const BASE: ScheduledServerOptions = { ttftMs: 100, intervalMs: 100 }
/** 50 % longer between tokens: decode a third slower, far beyond the 5 % limit and any noise. */
const SLOW: ScheduledServerOptions = { ttftMs: 100, intervalMs: 150 }
/**
 * The decode change SLOW reads against BASE: −33.3 % on the schedule. Each 15-gap decode window (1.5 s and 2.25 s)
 * moves by up to two late wake-ups of a loaded runner (test/helpers/load.ts), so the change reads between these.
 */
/**
 * For the PRs whose cell is compared with nothing (another workload, a name the store does not pair, another
 * hardware key): their engine's speed cannot move the verdict, so they run on a quick schedule (a round in about
 * 0.3 s instead of 2.5 s). A cell compared by mistake reads as an improvement or a pass against BASE, which fails
 * the `inconclusive` they must show as surely as the regression SLOW would read.
 */
const QUICK: ScheduledServerOptions = { ttftMs: 15, intervalMs: 15 }
const SLOWER_BY = {
  least: 1 - (15 * 100 + 2 * WAKE_MS) / (15 * 150 - 2 * WAKE_MS),
  most: 1 - (15 * 100 - 2 * WAKE_MS) / (15 * 150 + 2 * WAKE_MS),
}

let github: FakeGitHub
let cwd: string

beforeAll(async () => {
  github = await startFakeGitHub()
  cwd = await mkdtemp(join(tmpdir(), 'lbg-side-'))
})
afterAll(async () => {
  await github?.close()
})

interface Matrix {
  target?: string
  scenario?: string
  concurrency?: number
  hardware?: string
}

async function gateRun(schedule: ScheduledServerOptions, event: 'push' | 'pr', m: Matrix = {}) {
  const engine = await startScheduledServer(schedule)
  try {
    await writeFile(
      join(cwd, 'bench.yml'),
      [
        'version: 1',
        'defaults: { rounds: 3, discard: 1, ready-timeout: 10s, request-timeout: 30s, quality: false }',
        'gate:',
        '  decode: { max-regression: 5% }',
        'scenarios:',
        `  ${m.scenario ?? 'short'}: { input-tokens: 32, output-tokens: 16, concurrency: ${m.concurrency ?? 2} }`,
        'targets:',
        `  ${m.target ?? 'loopback'}:`,
        '    engine: openai',
        `    url: ${engine.url}`,
        '    model: scheduled',
        '',
      ].join('\n'),
    )
    const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }
    return await runAction({
      cwd,
      inputs: {
        config: 'bench.yml',
        'github-token': 'test-token',
        hardware: m.hardware ?? 'loopback-hw',
        'results-dir': 'out',
      },
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

describe('no side door passes a regression', () => {
  it('main records the baseline, with each cell’s workload digest in the history', async () => {
    const run = await gateRun(BASE, 'push')
    expect(run.code, run.stdout).toBe(0)
    const baseline = JSON.parse(github.state.readFile('llm-bench-data', 'loopback-hw/baseline.json')!) as ResultsFile
    const [cell] = baseline.cells
    expect(cell.workload).toMatchObject({ concurrency: 2, api: 'completions' })
    const history = JSON.parse(github.state.readFile('llm-bench-data', 'loopback-hw/history.json')!) as HistoryFile
    expect(history.entries.at(-1)?.workloads).toEqual({ 'loopback/short': workloadDigest(cell.workload) })
  })

  it('a target renamed in the PR that makes it a third slower is compared with the old name and fails', async () => {
    const run = await gateRun(SLOW, 'pr', { target: 'loopback-v2' })
    console.log('SUMMARY', run.summary)
    expect(run.code, run.stdout).toBe(1)
    expect(run.outputs.verdict).toBe('regression')
    const change = /\*\*loopback-v2\/short\*\*: decode tok\/s (?:[\d.,]+ → [\d.,]+ tok\/s, )?−(\d+\.\d)%/.exec(
      run.summary,
    )
    expect(change, run.summary).not.toBeNull()
    expect(Number(change![1]) / 100).toBeGreaterThanOrEqual(SLOWER_BY.least)
    expect(Number(change![1]) / 100).toBeLessThanOrEqual(SLOWER_BY.most)
    expect(run.summary).toContain('compared with loopback/short (renamed?)')
    expect(run.summary).not.toContain('No regression')
  })

  it('a scenario renamed at the same speed passes, compared with its old name', async () => {
    const run = await gateRun(BASE, 'pr', { scenario: 'short-2' })
    expect(run.code, run.stdout).toBe(0)
    expect(run.outputs.verdict).toBe('pass')
    expect(run.summary).toContain('compared with loopback/short (renamed? loopback/short is not in this run)')
  })

  it('the same id with another concurrency is not compared with the old workload: inconclusive, says what changed', async () => {
    const run = await gateRun(QUICK, 'pr', { concurrency: 4 })
    expect(run.code, run.stdout).toBe(0)
    expect(run.outputs.verdict).toBe('inconclusive')
    expect(run.summary).toContain(
      'workload changed since the baseline (concurrency 2 → 4, requests 2 → 4): not compared',
    )
    expect(run.summary).not.toMatch(/improvement|No regression/)
  })

  it('a rename that also changes the workload cannot be paired: inconclusive, never a clean pass', async () => {
    const run = await gateRun(QUICK, 'pr', { target: 'loopback-v3', concurrency: 4 })
    expect(run.code, run.stdout).toBe(0)
    expect(run.outputs.verdict).toBe('inconclusive')
    expect(run.summary).toContain("new cell, while the baseline's loopback/short was not measured (renamed?)")
    expect(run.summary).not.toMatch(/improvement|No regression/)
  })

  it('a PR that moves the hardware key compares nothing and says so', async () => {
    const run = await gateRun(QUICK, 'pr', { hardware: 'another-box' })
    expect(run.code, run.stdout).toBe(0)
    expect(run.outputs.verdict).toBe('inconclusive')
    expect(run.summary).toContain('no baseline under hardware key another-box, while the store holds loopback-hw')
    expect(run.summary).not.toMatch(/improvement|No regression/)
  })
})
