/**
 * `select: changed` end to end: the bundled action, three loopback engines and the GitHub API stand-in.
 * A push to main measures every target and writes the baseline; each PR then lists its changed files
 * through `pulls/{n}/files` and runs only the targets they touch; the others are reported as skipped
 * with their baseline figures, and nothing is written to the store.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatNumber } from '../../src/core/format.js'
import type { CellResult, ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import { startFakeGitHub, type FakeGitHub, type PullFile } from '../helpers/fake-github.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'
import { shareOff, WAKE_MS } from '../helpers/load.js'

/**
 * These runs are about which targets run, not speed, so the decode limit is one a loaded runner cannot trip. A
 * request's decode is read over its 16 tokens' 15 gaps of INTERVAL_MS, a 600 ms window, whose end stamps may each be
 * late by two wake-ups (the server's write, then the client's read): up to 20 % off, on either side. Twice that
 * keeps the same speed a pass however busy the runner (at 10 ms gaps and 8 tokens a 70 ms window read 27 % slow
 * beside another suite).
 */
const INTERVAL_MS = 40
const OUTPUT_TOKENS = 16
const DECODE_LIMIT = Math.ceil(200 * shareOff((OUTPUT_TOKENS - 1) * INTERVAL_MS, 2 * WAKE_MS))

const TARGETS = { vllm: 'scripts/vllm.sh', sglang: 'scripts/sglang.sh', llama: 'scripts/llama/**' }
const MARKER = '<!-- llm-bench-gate:bench.yml -->'
const repository = { default_branch: 'main', full_name: 'octo-org/octo-repo' }

let github: FakeGitHub
let cwd: string
const engines: Record<string, ScheduledServer> = {}

beforeAll(async () => {
  github = await startFakeGitHub()
  cwd = await mkdtemp(join(tmpdir(), 'lbg-select-'))
  // A checkout: the PR's file names are relative to the folder that holds `.git`.
  await mkdir(join(cwd, '.git'))
  for (const name of Object.keys(TARGETS))
    engines[name] = await startScheduledServer({ ttftMs: 40, intervalMs: INTERVAL_MS })
})
afterAll(async () => {
  await github?.close()
  await Promise.all(Object.values(engines).map((e) => e.close()))
})

/** The matrix file; `llamaEnv` changes the llama target's definition alone. */
function matrix(llamaEnv = '1'): string {
  const lines = [
    'version: 1',
    'defaults: { rounds: 2, discard: 1, ready-timeout: 10s, request-timeout: 30s, quality: false }',
    'gate:',
    `  decode: { max-regression: ${DECODE_LIMIT}% }`,
    'scenarios:',
    `  short: { input-tokens: 16, output-tokens: ${OUTPUT_TOKENS}, concurrency: 2 }`,
    'targets:',
  ]
  for (const [name, path] of Object.entries(TARGETS)) {
    lines.push(
      `  ${name}:`,
      '    engine: openai',
      `    url: ${engines[name].url}`,
      '    model: scheduled',
      `    paths: [${JSON.stringify(path)}]`,
    )
    if (name === 'llama') lines.push(`    env: { LLAMA_THREADS: "${llamaEnv}" }`)
  }
  return lines.join('\n') + '\n'
}

async function run(
  event: { name: string; ref: string; payload: unknown; sha?: string },
  config = matrix(),
  inputs: Record<string, string> = {},
  /** Where the repository is checked out, below the working directory (`actions/checkout` with `path:`). */
  checkout = '',
) {
  await writeFile(join(cwd, checkout, 'bench.yml'), config)
  const result = await runAction({
    cwd,
    inputs: {
      config: join(checkout, 'bench.yml'),
      'github-token': 'test-token',
      hardware: 'select-hw',
      'results-dir': 'out',
      select: 'changed',
      ...inputs,
    },
    env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'octo-org/octo-repo' },
    event,
  })
  const results = JSON.parse(await readFile(join(cwd, 'out', 'results.json'), 'utf8')) as ResultsFile
  return { ...result, results, cell: (target: string) => results.cells.find((c) => c.target === target)! }
}

function pr(number: number, files: PullFile[], baseSha?: string) {
  github.state.pullFiles.set(number, files)
  return {
    name: 'pull_request',
    ref: `refs/pull/${number}/merge`,
    payload: { pull_request: { number, base: { sha: baseSha } }, repository },
  }
}

const measured = (cell: CellResult) => cell.status === 'ok' && cell.metrics !== null && !cell.verdict.skipped
const comment = (n: number) => github.state.commentsOn(n).find((c) => c.body.includes(MARKER))!.body

describe('select: changed', () => {
  it('a push to main runs every target and stores the baseline', async () => {
    const push = await run({ name: 'push', ref: 'refs/heads/main', payload: { ref: 'refs/heads/main', repository } })
    expect(push.code, push.stdout).toBe(0)
    expect(push.results.cells.filter(measured).map((c) => c.target)).toEqual(['vllm', 'sglang', 'llama'])
    expect(push.results.run.selection).toMatch(/every target runs: not a pull request/)
    expect(github.state.readFile('llm-bench-data', 'select-hw/baseline.json')).toBeDefined()
  })

  it('a PR touching one target’s script runs that target only; the others are skipped with their baseline figures', async () => {
    const before = github.state.head('llm-bench-data')
    const requests = Object.fromEntries(Object.entries(engines).map(([n, e]) => [n, e.requests.length]))
    const files: PullFile[] = [
      { filename: 'scripts/sglang.sh' },
      ...Array.from({ length: 150 }, (_, i) => ({ filename: `docs/page-${i}.md` })),
    ]
    const result = await run(pr(21, files))
    expect(result.code, result.stdout).toBe(0)
    expect(result.outputs.verdict).toBe('pass')
    // Two pages of the files API were read.
    expect(github.state.log.filter((r) => r.path.endsWith('/pulls/21/files')).map((r) => r.query.page)).toEqual([
      '1',
      '2',
    ])
    expect(measured(result.cell('sglang'))).toBe(true)
    expect(engines.vllm.requests.length).toBe(requests.vllm)
    expect(engines.llama.requests.length).toBe(requests.llama)
    for (const target of ['vllm', 'llama']) {
      const cell = result.cell(target)
      expect(cell.verdict).toMatchObject({ status: 'missing', skipped: 'unchanged' })
      expect(cell.metrics).toBeNull()
      expect(cell.verdict.reference?.decode?.value).toBeGreaterThan(0)
    }
    expect(result.results.summary?.counts).toMatchObject({ missing: 2 })
    const body = comment(21)
    expect(body).toContain('⏭️ 2 skipped (unchanged)')
    const row = body.split('\n').find((l) => l.includes('**vllm · short**'))!
    expect(row).toContain('skipped (unchanged)')
    expect(row).toContain(`| ${formatNumber(result.cell('vllm').verdict.reference!.decode!.value)} |`)
    expect(body).toMatch(/ran 1 of 3 targets, 2 skipped \(unchanged\): vllm, llama/)
    expect(github.state.head('llm-bench-data')).toBe(before)
  })

  it('3,001 changed files run everything and the summary says why', async () => {
    const files = Array.from({ length: 3001 }, (_, i) => ({ filename: `generated/file-${i}.txt` }))
    const result = await run(pr(22, files))
    expect(result.code, result.stdout).toBe(0)
    expect(result.results.cells.filter(measured)).toHaveLength(3)
    expect(result.summary).toContain(
      'every target runs: the PR changes 3,000 files or more, past what the GitHub API lists',
    )
  })

  it('a failure to read the changed files runs everything and says so', async () => {
    github.inject.failPullFiles(502)
    try {
      const result = await run(pr(23, [{ filename: 'scripts/vllm.sh' }]))
      expect(result.code, result.stdout).toBe(0)
      expect(result.results.cells.filter(measured)).toHaveLength(3)
      expect(result.summary).toContain(
        "select: changed — every target runs: the PR's changed files could not be read (HTTP 502: Server Error",
      )
    } finally {
      github.inject.failPullFiles(false)
    }
  })

  it('a change to the matrix file re-runs only the target whose definition changed', async () => {
    github.state.writeFile('main', 'bench.yml', matrix('1'))
    const base = github.state.head('main')!
    const result = await run(pr(24, [{ filename: 'bench.yml' }], base), matrix('2'))
    expect(result.code, result.stdout).toBe(0)
    expect(result.results.cells.filter(measured).map((c) => c.target)).toEqual(['llama'])
    expect(result.cell('vllm').verdict.skipped).toBe('unchanged')
    expect(result.stdout).toContain('llama: runs (its definition in the matrix file changed)')
  })

  it('with the repository checked out in a subfolder, a change to the matrix file still re-runs its target', async () => {
    const sub = join(cwd, 'repo')
    await mkdir(join(sub, '.git'), { recursive: true })
    try {
      const base = github.state.head('main')!
      const result = await run(pr(27, [{ filename: 'bench.yml' }], base), matrix('5'), {}, 'repo')
      expect(result.code, result.stdout).toBe(0)
      expect(result.results.cells.filter(measured).map((c) => c.target)).toEqual(['llama'])
      expect(result.stdout).toContain('llama: runs (its definition in the matrix file changed)')
    } finally {
      await rm(sub, { recursive: true, force: true })
    }
  })

  it('a matrix file outside any git checkout runs every target and says why', async () => {
    await rm(join(cwd, '.git'), { recursive: true })
    try {
      const result = await run(pr(28, [{ filename: 'scripts/vllm.sh' }]), matrix('1'))
      expect(result.code, result.stdout).toBe(0)
      expect(result.results.cells.filter(measured)).toHaveLength(3)
      expect(result.results.run.selection).toContain('bench.yml is not inside a git checkout')
    } finally {
      await mkdir(join(cwd, '.git'))
    }
  })

  it('a matrix file whose base cannot be read runs all of its targets', async () => {
    const base = github.state.head('main')!
    github.inject.failContentsGets({ status: 503, suffix: 'bench.yml' })
    try {
      const result = await run(pr(25, [{ filename: 'bench.yml' }], base), matrix('3'))
      expect(result.code, result.stdout).toBe(0)
      expect(result.results.cells.filter(measured)).toHaveLength(3)
      expect(result.results.run.selection).toMatch(
        new RegExp(
          `bench\\.yml at the base commit ${base.slice(0, 7)} could not be read \\(.+\\), so every target of the matrix file runs$`,
        ),
      )
    } finally {
      github.inject.failContentsGets(false)
    }
  })

  it('a matrix file new in the PR (absent at the base) runs all of its targets', async () => {
    const result = await run(pr(26, [{ filename: 'bench.yml' }], 'f'.repeat(40)), matrix('4'))
    expect(result.code, result.stdout).toBe(0)
    expect(result.results.cells.filter(measured)).toHaveLength(3)
    expect(result.results.run.selection).toContain(
      'bench.yml does not exist at the base commit fffffff, so every target of the matrix file runs',
    )
  })

  it('an explicit update-baseline on a PR is refused: no target launched, nothing written to the store', async () => {
    // The data branch holds main's history: a PR's figures (skipped cells or not) never reach it.
    const head = github.state.head('llm-bench-data')
    const requests = Object.values(engines).reduce((n, e) => n + e.requests.length, 0)
    const result = await run({ ...pr(27, [{ filename: 'scripts/vllm.sh' }]), sha: 'b'.repeat(40) }, matrix(), {
      mode: 'update-baseline',
    })
    expect(result.code, result.stdout).toBe(1)
    expect(result.stdout).toMatch(
      /::error::mode update-baseline writes the baseline and history of the default branch \(main\), but this run is on refs\/pull\/27\/merge: refused/,
    )
    expect(result.results.cells).toEqual([])
    expect(Object.values(engines).reduce((n, e) => n + e.requests.length, 0)).toBe(requests)
    expect(github.state.head('llm-bench-data')).toBe(head)
  })
})
