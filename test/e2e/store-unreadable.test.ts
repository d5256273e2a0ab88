/**
 * Never store what cannot be read, through the bundled action and the GitHub API stand-in. A fake vLLM whose
 * /metrics says `+Inf`, sums past the largest double over its label sets and divides by a denormal writes its
 * baseline on the default branch; the PR run after it reads that baseline. A baseline another writer left
 * unreadable (a null where a number belongs) still fails a PR closed, and a default-branch run of the same key
 * replaces it with a warning naming the file and the field.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { readResults } from '../../src/store/results-file.js'
import { fakeLaunch } from '../engines/fake.js'
import { runAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js'

const BRANCH = 'llm-bench-data'
const REPOSITORY = { default_branch: 'main', full_name: 'octo-org/octo-repo' }

/** What an engine must never get into a stored file: +Inf, a label-set sum past 1.8e308, a rate over a denormal. */
const HOSTILE = [
  'vllm:kv_cache_usage_perc{engine="0"} +Inf',
  'vllm:num_requests_waiting{engine="0"} 1.5e308',
  'vllm:num_requests_waiting{engine="1"} 1.5e308',
  'vllm:num_requests_running{engine="1"} NaN',
  'vllm:prefix_cache_queries_total{engine="0"} {requests*1e-320}',
  'vllm:prefix_cache_hits_total{engine="0"} {requests*1e10}',
  '',
].join('\n')

let github: FakeGitHub
let cwd: string

beforeAll(async () => {
  github = await startFakeGitHub()
  cwd = await mkdtemp(join(tmpdir(), 'lbg-unreadable-'))
  await writeFile(join(cwd, 'hostile.prom'), HOSTILE)
  await writeFile(join(cwd, 'hostile.yml'), config(`--metrics-extra '${join(cwd, 'hostile.prom')}'`))
  await writeFile(join(cwd, 'plain.yml'), config(''))
})
afterAll(async () => {
  await github?.close()
})

function config(extra: string): string {
  const launch = fakeLaunch('vllm', `--ttft-ms 5 --itl-ms 10 ${extra}`)
  return [
    'version: 1',
    'defaults: { rounds: 3, discard: 1, ready-timeout: 20s, request-timeout: 30s, confirm: 0, max-rounds: 3, quality: false }',
    'scenarios:',
    '  chat: { input-tokens: 16, output-tokens: 80, concurrency: 2, requests: 4 }',
    'targets:',
    `  fake: { engine: vllm, launch: ${JSON.stringify(launch)} }`,
    '',
  ].join('\n')
}

/** A default-branch push (`pr` undefined) or a pull_request run of PR #7, on the given hardware key. */
function run(o: { config: string; hardware: string; sha: string; out: string; pr?: number }) {
  const event = o.pr
    ? {
        name: 'pull_request',
        ref: `refs/pull/${o.pr}/merge`,
        sha: o.sha,
        payload: { pull_request: { number: o.pr }, repository: REPOSITORY },
      }
    : { name: 'push', ref: 'refs/heads/main', sha: o.sha, payload: { ref: 'refs/heads/main', repository: REPOSITORY } }
  return runAction({
    cwd,
    inputs: { config: o.config, 'github-token': 'test-token', hardware: o.hardware, 'results-dir': o.out },
    env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: REPOSITORY.full_name },
    event,
    timeoutMs: 120_000,
  })
}

describe('an engine whose /metrics says +Inf and overflows cannot brick the data branch', () => {
  it('the default-branch run stores a readable baseline; the PR run after it reads it', async () => {
    const main = await run({ config: 'hostile.yml', hardware: 'hw', sha: '1'.repeat(40), out: 'main' })
    expect(main.code, main.stdout).toBe(0)
    expect(main.stdout).toMatch(/baseline for hw updated/)
    const stored = github.state.readFile(BRANCH, 'hw/baseline.json')!
    expect(() => readResults(stored, 'hw/baseline.json')).not.toThrow()
    const server = (JSON.parse(stored) as ResultsFile).cells[0].rounds.filter((r) => r.steady).map((r) => r.server!)
    expect(server.length).toBe(2)
    for (const s of server) {
      // Non-finite samples and sums are missing, not values; the rate is a share at most 1.
      expect(s.peaks['vllm:kv_cache_usage_perc']).toBeUndefined()
      expect(s.peaks['vllm:num_requests_waiting']).toBeUndefined()
      expect(s.peaks['vllm:num_requests_running']).toBe(0)
      expect(s.rates?.prefix_cache_hit_rate ?? 1).toBeLessThanOrEqual(1)
    }

    const pr = await run({ config: 'hostile.yml', hardware: 'hw', sha: '2'.repeat(40), out: 'pr', pr: 7 })
    expect(pr.stdout).not.toMatch(/could not be read/)
    const compared = JSON.parse(await readFile(join(cwd, 'pr', 'results.json'), 'utf8')) as ResultsFile
    expect(compared.summary?.baseline?.sha).toBe('1'.repeat(40))
    expect(compared.cells[0].verdict.status, pr.stdout).not.toBe('error')
  }, 180_000)

  it("a PR still fails closed on an unreadable baseline; the default branch replaces its own key's, warning", async () => {
    const good = JSON.parse(github.state.readFile(BRANCH, 'hw/baseline.json')!) as ResultsFile
    const cell = good.cells[0]
    const last = cell.rounds.length - 1
    const broken = JSON.parse(JSON.stringify({ ...good, run: { ...good.run, hardware: 'hw2' } })) as ResultsFile
    ;(broken.cells[0].rounds[last].server!.peaks as Record<string, unknown>)['vllm:num_requests_running'] = null
    github.state.writeFile(BRANCH, 'hw2/baseline.json', JSON.stringify(broken, null, 2), 'an older writer')
    const field = `cells[0].rounds[${last}].server.peaks["vllm:num_requests_running"]: expected a number, got null`

    const pr = await run({ config: 'plain.yml', hardware: 'hw2', sha: '3'.repeat(40), out: 'pr2', pr: 7 })
    expect(pr.code).toBe(1)
    expect(pr.stdout).toContain('the baseline could not be read')
    expect(pr.stdout).toContain(field)

    const main = await run({ config: 'plain.yml', hardware: 'hw2', sha: '4'.repeat(40), out: 'main2' })
    expect(main.code, main.stdout).toBe(0)
    const warning = main.stdout.split('\n').find((l) => l.startsWith('::warning::') && l.includes('hw2/baseline.json'))
    expect(warning, main.stdout).toBeDefined()
    expect(warning).toContain(field)
    expect(warning).toMatch(/replac/)
    const replaced = readResults(github.state.readFile(BRANCH, 'hw2/baseline.json')!, 'hw2/baseline.json')
    expect(replaced.run.sha).toBe('4'.repeat(40))
    // The other key was not touched.
    expect((JSON.parse(github.state.readFile(BRANCH, 'hw/baseline.json')!) as ResultsFile).run.sha).toBe('1'.repeat(40))
  }, 180_000)
})
