/**
 * A GitHub API that never answers, or fails, never costs the run its local outputs, and a baseline update
 * never passes without its write. The bundled action against the loopback GitHub stand-in, whose faults hold
 * a request open without an answer (as a GitHub that accepted the connection and then said nothing) or answer
 * every write with HTTP 500. `LLM_BENCH_GATE_TEST_API_TIMEOUT_MS` shortens the 30 s per-request bound
 * (src/action/runner.ts); the SIGTERM case keeps the full bound, so only the signal can end it in time.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'

const BRANCH = 'llm-bench-data'
const REPO = 'octo-org/octo-repo'
const REPOSITORY = { default_branch: 'main', full_name: REPO }
/** The shortened per-request bound of the tests that wait it out. */
const BOUND_MS = 1500
/** Teardown after the bound or the signal: the warning, the step outputs, node's exit; generous for a loaded CI box. */
const EXIT_SLACK_MS = 5000

let github: FakeGitHub
let engine: ScheduledServer
let cwd: string

beforeAll(async () => {
  github = await startFakeGitHub()
  engine = await startScheduledServer({ ttftMs: 20, intervalMs: 5 })
  cwd = await mkdtemp(join(tmpdir(), 'lbg-api-bounds-'))
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'defaults: { rounds: 2, discard: 1, ready-timeout: 10s, request-timeout: 30s, quality: false }',
      'scenarios:',
      '  short: { input-tokens: 16, output-tokens: 8, concurrency: 2 }',
      'targets:',
      `  loopback: { engine: openai, url: ${engine.url}, model: scheduled }`,
      '',
    ].join('\n'),
  )
})
afterEach(() => {
  github.inject.hang(false)
  github.inject.failWrites(false)
})
afterAll(async () => {
  await Promise.all([github?.close(), engine?.close()])
})

type Event = 'pr' | 'push-main' | 'push-feature'
const EVENTS = {
  pr: {
    name: 'pull_request',
    ref: 'refs/pull/5/merge',
    payload: { pull_request: { number: 5 }, repository: REPOSITORY },
  },
  'push-main': { name: 'push', ref: 'refs/heads/main', payload: { ref: 'refs/heads/main', repository: REPOSITORY } },
  'push-feature': {
    name: 'push',
    ref: 'refs/heads/feature',
    payload: { ref: 'refs/heads/feature', repository: REPOSITORY },
  },
}

let runs = 0

interface Spawned {
  child: ChildProcess
  /** What is on disk now: the local outputs the run has written so far. */
  onDisk(): { results?: string; report?: string; summary?: string }
}

/** One action run in a results dir of its own; the job summary goes to a file the test can read mid-run. */
async function act(
  event: Event,
  o: {
    inputs?: Record<string, string>
    boundMs?: number
    token?: boolean
    onSpawn?: (spawned: Spawned) => void
  } = {},
) {
  const out = `out-${++runs}`
  const summaryFile = join(cwd, `${out}-summary.md`)
  await writeFile(summaryFile, '')
  const file = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined)
  const onDisk = () => ({
    results: file(join(cwd, out, 'results.json')),
    report: file(join(cwd, out, 'report.md')),
    summary: file(summaryFile),
  })
  const run = await runAction({
    cwd,
    inputs: {
      config: 'bench.yml',
      hardware: 'hw',
      'results-dir': out,
      ...(o.token === false ? {} : { 'github-token': 'test-token' }),
      ...o.inputs,
    },
    env: {
      GITHUB_API_URL: github.url,
      GITHUB_REPOSITORY: REPO,
      GITHUB_STEP_SUMMARY: summaryFile,
      ...(o.boundMs ? { LLM_BENCH_GATE_TEST_API_TIMEOUT_MS: String(o.boundMs) } : {}),
    },
    event: { ...EVENTS[event], sha: (runs % 16).toString(16).repeat(40) },
    timeoutMs: 90_000,
    onSpawn: (child) => o.onSpawn?.({ child, onDisk }),
  })
  const exitedAt = Date.now()
  const written = onDisk()
  return {
    run,
    results: written.results === undefined ? undefined : (JSON.parse(written.results) as ResultsFile),
    summary: written.summary ?? '',
    exitedAt,
  }
}

describe('a GitHub API that never answers', () => {
  it('the PR comment hangs: results, report and summary are written first, and the step ends at the bound', async () => {
    let spawned: Spawned | undefined
    let hungAt = 0
    let seen: ReturnType<Spawned['onDisk']> | undefined
    github.inject.hang({
      method: 'GET',
      path: /^\/issues\/\d+\/comments$/,
      onHang: () => {
        hungAt = Date.now()
        seen = spawned?.onDisk()
      },
    })
    const { run, results, summary, exitedAt } = await act('pr', { boundMs: BOUND_MS, onSpawn: (s) => (spawned = s) })
    const afterHang = exitedAt - hungAt
    console.log(`comment hang, ${BOUND_MS} ms bound: exit ${run.code} ${afterHang} ms after the request hung`)
    expect(hungAt, run.stdout).toBeGreaterThan(0)
    // Before the first comment request: the results file, the report and the job summary, all complete.
    expect(seen?.results && (JSON.parse(seen.results) as ResultsFile).cells).toHaveLength(1)
    expect(seen?.report).toContain('llm-bench-gate')
    expect(seen?.summary?.trimEnd()).toBe(seen?.report?.trimEnd())
    expect(run.code, run.stdout).toBe(0)
    expect(results?.cells[0].status).toBe('ok')
    expect(summary).toContain('loopback/short')
    expect(run.outputs.verdict).toBe('pass')
    expect(run.outputs['results-file']).toMatch(/results\.json$/)
    expect(run.outputs['comment-url']).toBeUndefined()
    expect(run.stdout).toMatch(
      /::warning::the PR comment could not be written: GET \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\}\/comments: no answer within 1\.5s/,
    )
    // The client's timer starts as it sends, a moment before the fake logs the request.
    expect(afterHang).toBeGreaterThanOrEqual(BOUND_MS - 100)
    expect(afterHang).toBeLessThan(BOUND_MS + EXIT_SLACK_MS)
  }, 120_000)

  it('the PR comment hangs and the job is cancelled: SIGTERM ends it at once, with the outputs written', async () => {
    let spawned: Spawned | undefined
    let signalledAt = 0
    let seen: ReturnType<Spawned['onDisk']> | undefined
    github.inject.hang({
      method: 'GET',
      path: /^\/issues\/\d+\/comments$/,
      onHang: () => {
        seen = spawned?.onDisk()
        signalledAt = Date.now()
        spawned?.child.kill('SIGTERM')
      },
    })
    // The full 30 s bound: only the signal can end the wait in time.
    const { run, results, summary, exitedAt } = await act('pr', { onSpawn: (s) => (spawned = s) })
    const afterSignal = exitedAt - signalledAt
    console.log(`comment hang, SIGTERM: exit ${run.code} ${afterSignal} ms after the signal`)
    expect(signalledAt, run.stdout).toBeGreaterThan(0)
    expect(seen?.summary).toContain('loopback/short')
    expect(run.code, run.stdout).toBe(1)
    expect(run.stdout).toContain('received SIGTERM')
    expect(run.stdout).toMatch(/::warning::the PR comment could not be written: GET .*: cancelled by SIGTERM/)
    expect(run.stdout).toMatch(/::error::cancelled by SIGTERM/)
    expect(results?.cells[0].status).toBe('ok')
    expect(summary).toContain('loopback/short')
    expect(run.outputs.verdict).toBe('pass')
    expect(afterSignal).toBeLessThan(EXIT_SLACK_MS)
  }, 120_000)

  it('the baseline read hangs: the run fails closed with verdict error naming the timeout, nothing launched', async () => {
    github.inject.hang({ method: 'GET', path: /^\/contents\// })
    const before = engine.requests.length
    const { run, results, summary } = await act('pr', { boundMs: BOUND_MS })
    expect(run.code, run.stdout).toBe(1)
    expect(run.outputs.verdict).toBe('error')
    expect(results?.cells[0].status).toBe('error')
    expect(results?.cells[0].error).toMatch(
      /the baseline could not be read \(llm-bench-data:hw\/(baseline|history)\.json: cannot read: GET .*: no answer within 1\.5s\)/,
    )
    expect(summary).toMatch(/no answer within 1\.5s/)
    expect(engine.requests.length).toBe(before)
  }, 120_000)
})

describe('a baseline update whose write fails fails the step', () => {
  it.each([
    ['every write answers HTTP 500', () => github.inject.failWrites(500), /cannot create it: HTTP 500 Server Error/],
    [
      'a write never answers',
      () => github.inject.hang({ method: 'POST', path: /^\/git\/blobs$/ }),
      /cannot create it: POST \/repos\/\{owner\}\/\{repo\}\/git\/blobs: no answer within 1\.5s/,
    ],
  ])(
    '%s: the step fails naming the baseline, after results and summary are written',
    async (_name, fault, why) => {
      fault()
      const { run, results, summary } = await act('push-main', { boundMs: BOUND_MS })
      expect(run.code, run.stdout).toBe(1)
      const failure = new RegExp(`::error::baseline for hw not written: branch ${BRANCH}: ${why.source}`)
      expect(run.stdout).toMatch(failure)
      expect(results?.cells[0].status).toBe('ok')
      expect(summary).toContain('loopback/short')
      expect(run.outputs.verdict).toBe('pass')
      expect(github.state.head(BRANCH)).toBeUndefined()
    },
    120_000,
  )

  it('the same update with a GitHub that answers writes the branch and passes', async () => {
    const { run } = await act('push-main', { boundMs: BOUND_MS })
    expect(run.code, run.stdout).toBe(0)
    expect(run.stdout).toContain('baseline for hw updated')
    expect(github.state.readFile(BRANCH, 'hw/baseline.json')).toBeDefined()
  }, 120_000)
})

describe('update-baseline only from the default branch, only with somewhere to write', () => {
  it.each([
    [
      'mode update-baseline on a feature branch',
      'push-feature' as const,
      { inputs: { mode: 'update-baseline' } },
      /mode update-baseline writes the baseline and history of the default branch \(main\), but this run is on refs\/heads\/feature: refused/,
    ],
    [
      'mode update-baseline on a pull request',
      'pr' as const,
      { inputs: { mode: 'update-baseline' } },
      /mode update-baseline writes .*, but this run is on refs\/pull\/5\/merge: refused/,
    ],
    [
      'a push to main without a token',
      'push-main' as const,
      { token: false },
      /mode update-baseline writes the baseline to the data branch, but there is no GitHub token or repository/,
    ],
  ])(
    '%s: refused before launch, nothing written, the step fails saying why',
    async (_name, event, o, says) => {
      const head = github.state.head(BRANCH)
      const [launched, calls] = [engine.requests.length, github.state.log.length]
      const { run, results, summary } = await act(event, o)
      expect(run.code, run.stdout).toBe(1)
      expect(run.stdout).toMatch(new RegExp(`::error::${says.source}`))
      expect(summary).toMatch(says)
      expect(run.outputs.verdict).toBe('error')
      expect(results?.cells).toEqual([])
      expect(engine.requests.length).toBe(launched)
      expect(github.state.log.length).toBe(calls)
      expect(github.state.head(BRANCH)).toBe(head)
    },
    120_000,
  )
})
