/** The pipeline in-process: shards and merge, dry-run, `only`, and the baseline-file mode. */
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULTS } from '../../src/config/inputs.js'
import { CONTEXT as context, inProcessPipeline, readResultsFile } from '../helpers/in-process.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { runPipeline } from '../../src/run/pipeline.js'
import type { ResultsFile } from '../../src/core/results.js'
import { readResults } from '../../src/store/index.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'

let a: ScheduledServer
let b: ScheduledServer
let cwd: string

beforeAll(async () => {
  ;[a, b] = await Promise.all([
    startScheduledServer({ ttftMs: 50, intervalMs: 20 }),
    startScheduledServer({ ttftMs: 50, intervalMs: 20 }),
  ])
  cwd = await mkdtemp(join(tmpdir(), 'lbg-pipeline-'))
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      // A 20 ms token interval over 16 tokens keeps timer jitter (~1 ms) far below the 5 % gate. No quality probe
      // (40 questions and 14 prompts per target and run): shards, merge and the baseline are the subject here, and
      // test/e2e/quality.test.ts covers the probe.
      'defaults: { rounds: 3, discard: 1, request-timeout: 10s, quality: false }',
      'scenarios:',
      '  one: { input-tokens: 16, output-tokens: 16, concurrency: 1 }',
      '  two: { input-tokens: 16, output-tokens: 16, concurrency: 2 }',
      'targets:',
      `  a-fp8: { engine: openai, url: ${a.url}, model: m, quant: fp8 }`,
      `  b-nvfp4: { engine: openai, url: ${b.url}, model: m, quant: nvfp4 }`,
      '',
    ].join('\n'),
  )
})
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()])
})

const pipeline = inProcessPipeline(() => cwd, { config: 'bench.yml' })
const read = readResultsFile

describe('pipeline', () => {
  it('shards split by target and merge gathers them into one run', async () => {
    const s1 = await pipeline({ shard: '1/2', resultsDir: 'shards/s1' })
    const s2 = await pipeline({ shard: '2/2', resultsDir: 'shards/s2' })
    expect(s1.resultsFile).toMatch(/results-shard-1-of-2\.json$/)
    expect(await readdir(join(cwd, 'shards/s1'))).not.toContain('leaderboard.html')
    const ids = async (path: string) => (await read(path)).cells.map((c) => c.id)
    expect(await ids(s1.resultsFile)).toEqual(['a-fp8/one', 'a-fp8/two'])
    expect(await ids(s2.resultsFile)).toEqual(['b-nvfp4/one', 'b-nvfp4/two'])
    const merged = await pipeline({ mode: 'merge', resultsDir: 'shards' })
    expect(merged.failure).toBeUndefined()
    expect(await ids(merged.resultsFile)).toEqual(['a-fp8/one', 'a-fp8/two', 'b-nvfp4/one', 'b-nvfp4/two'])
    expect(await readFile(join(cwd, 'shards', 'leaderboard.html'), 'utf8')).toContain('b-nvfp4')
  })

  it('merge turns a planned cell that no shard reported into an error', async () => {
    const merged = await pipeline({ mode: 'merge', resultsDir: 'shards/s1' })
    const results = await read(merged.resultsFile)
    expect(results.cells.filter((c) => c.status === 'error').map((c) => c.id)).toEqual(['b-nvfp4/one', 'b-nvfp4/two'])
    expect(merged.failure).toMatch(/could not be measured/)
  })

  it('merge names the shard that sent nothing in the results file and the report', async () => {
    const merged = await pipeline({ mode: 'merge', resultsDir: 'shards/s1' })
    const results = await read(merged.resultsFile)
    expect(results.run.shards).toEqual({ count: 2, missing: [2] })
    expect(results.cells.find((c) => c.id === 'b-nvfp4/one')?.error).toMatch(/^shard 2\/2 sent no results file/)
    expect(merged.verdict).toBe('error')
    expect(merged.summary).toContain('Shards: 1 of 2 sent results; shard 2 sent nothing, so its cells are errors')
  })

  it('only runs the matching cells', async () => {
    const before = a.requests.length + b.requests.length
    const result = await pipeline({ only: '*-nvfp4/two', resultsDir: 'only' })
    expect((await read(result.resultsFile)).cells.map((c) => c.id)).toEqual(['b-nvfp4/two'])
    expect(a.requests.length + b.requests.length).toBeGreaterThan(before)
  })

  it('dry-run prints the plan and sends nothing', async () => {
    const before = a.requests.length + b.requests.length
    const result = await pipeline({ dryRun: true, resultsDir: 'dry' })
    expect(result.summary).toContain('a-fp8/one')
    expect(result.verdict).toBe('pass')
    expect(a.requests.length + b.requests.length).toBe(before)
    expect(await readdir(join(cwd, 'dry'))).toEqual(['report.md', 'results.json'])
  })

  it('compares against a baseline file and passes at the same speed', async () => {
    const base = await pipeline({ resultsDir: 'base' })
    const result = await pipeline({ mode: 'compare', baselineFile: base.resultsFile, resultsDir: 'cmp' })
    const cells = (await read(result.resultsFile)).cells
    expect(cells.map((c) => c.verdict.status)).toEqual(['pass', 'pass', 'pass', 'pass'])
    expect(result.failure).toBeUndefined()
  })

  it('every results file it wrote reads back through the results reader unchanged', async () => {
    const files = [
      'shards/s1/results-shard-1-of-2.json',
      'shards/s2/results-shard-2-of-2.json',
      'shards/results.json',
      'only/results.json',
      'dry/results.json',
      'base/results.json',
      'cmp/results.json',
    ]
    for (const file of files) {
      const text = await readFile(join(cwd, file), 'utf8')
      expect(readResults(text, file), file).toEqual(JSON.parse(text))
    }
    const judged = readResults(await readFile(join(cwd, 'cmp/results.json'), 'utf8'), 'cmp')
    expect(judged.cells[0].verdict.metrics.decode).toMatchObject({ metric: 'decode', stat: 'mean' })
  })
})

describe('baseline write on the default branch', () => {
  it('keeps flagged cells out of the baseline and writes the healthy ones', async () => {
    const { getOctokit } = await import('@actions/github')
    const { startFakeGitHub } = await import('../helpers/fake-github.js')
    const github = await startFakeGitHub()
    // Every 2nd generation request answers 500: the round's failed share (50 %) is over the 10 % limit.
    const flaky = await startScheduledServer({ ttftMs: 50, intervalMs: 20, faults: { httpErrorEvery: 2 } })
    try {
      const dir = await mkdtemp(join(tmpdir(), 'lbg-write-'))
      await writeFile(
        join(dir, 'bench.yml'),
        [
          'version: 1',
          'defaults: { rounds: 2, discard: 1, request-timeout: 10s, quality: false }',
          'scenarios:',
          '  two: { input-tokens: 16, output-tokens: 8, concurrency: 2, requests: 4 }',
          'targets:',
          `  good: { engine: openai, url: ${a.url}, model: m }`,
          `  flaky: { engine: openai, url: ${flaky.url}, model: m }`,
          '',
        ].join('\n'),
      )
      const log = memoryLogger()
      const result = await runPipeline({
        options: { ...DEFAULTS, config: 'bench.yml', hardware: 'hw' },
        context: { event: 'push', sha: 'c0ffee', ref: 'refs/heads/main', runUrl: '', defaultBranch: 'main' },
        log,
        toolVersion: 'test',
        cwd: dir,
        github: {
          request: getOctokit('t', { baseUrl: github.url }).request as never,
          repo: { owner: github.state.owner, repo: github.state.repo },
        },
      })
      expect(result.failure).toBeUndefined()
      const written = JSON.parse(github.state.readFile('llm-bench-data', 'hw/baseline.json')!) as ResultsFile
      expect(written.cells.map((c) => c.id)).toEqual(['good/two'])
      expect(log.lines.join('\n')).toMatch(/flaky\/two: not written to the baseline \(flagged: /)
    } finally {
      await Promise.all([github.close(), flaky.close()])
    }
  })
})

describe('reading the baseline fails closed', () => {
  // A missing branch is "no baseline yet"; any other failure to read it must never pass as "new".
  const compareOnBranch = async (prepare: (gh: import('../helpers/fake-github.js').FakeGitHub) => void) => {
    const { getOctokit } = await import('@actions/github')
    const { startFakeGitHub } = await import('../helpers/fake-github.js')
    const github = await startFakeGitHub()
    try {
      prepare(github)
      const before = a.requests.length + b.requests.length
      const result = await runPipeline({
        options: {
          ...DEFAULTS,
          config: 'bench.yml',
          hardware: 'hw',
          mode: 'compare',
          resultsDir: `closed-${Math.random().toString(36).slice(2)}`,
        },
        context,
        log: memoryLogger(),
        toolVersion: 'test',
        cwd,
        github: {
          request: getOctokit('t', { baseUrl: github.url }).request as never,
          repo: { owner: github.state.owner, repo: github.state.repo },
        },
      })
      return {
        result,
        sent: a.requests.length + b.requests.length - before,
        cells: (await read(result.resultsFile)).cells,
      }
    } finally {
      await github.close()
    }
  }

  const dataFile = (gh: import('../helpers/fake-github.js').FakeGitHub, path: string, text: string) => {
    gh.state.refs.set('refs/heads/llm-bench-data', gh.state.putCommit(gh.state.putTree(new Map()), [], 'orphan'))
    gh.state.writeFile('llm-bench-data', path, text)
  }

  it('a missing data branch is no baseline yet: every cell is new and passes', async () => {
    const { result, cells, sent } = await compareOnBranch(() => undefined)
    expect(cells.map((c) => c.verdict.status)).toEqual(['new', 'new', 'new', 'new'])
    expect(result.failure).toBeUndefined()
    expect(sent).toBeGreaterThan(0)
  })

  it.each([
    [
      'an HTTP 503 on history.json',
      (gh: import('../helpers/fake-github.js').FakeGitHub) => {
        dataFile(gh, 'hw/baseline.json', '{}')
        gh.inject.failContentsGets({ status: 503, suffix: 'hw/history.json' })
      },
      /llm-bench-data:hw\/history\.json: cannot read: HTTP 503/,
    ],
    [
      'an unparsable baseline.json',
      (gh: import('../helpers/fake-github.js').FakeGitHub) => {
        dataFile(gh, 'hw/baseline.json', '{"schema": "llm-bench-gate/results@1", ')
      },
      /llm-bench-data:hw\/baseline\.json: not valid JSON/,
    ],
  ])('%s makes every cell an error naming the file, and nothing is launched', async (_name, prepare, names) => {
    const { result, cells, sent } = await compareOnBranch(prepare)
    expect(cells.map((c) => c.verdict.status)).toEqual(['error', 'error', 'error', 'error'])
    for (const cell of cells) expect(cell.error).toMatch(names)
    expect(result.verdict).toBe('error')
    expect(result.failure).toMatch(/4 cell\(s\) could not be measured/)
    expect(result.summary).toMatch(names)
    expect(sent).toBe(0)
  })

  it.each([
    ['a file that does not exist', undefined, /baseline-file: cannot read/],
    ['a file that is not JSON', 'not json', /baseline-file .*: not valid JSON/],
    ['a results file of another tool', '{"schema": "other/thing@1"}', /baseline-file .*schema/],
  ])(
    'an unusable baseline-file (%s) is a configuration error before anything is launched',
    async (_name, text, says) => {
      const file = join(cwd, `bad-baseline-${Math.random().toString(36).slice(2)}.json`)
      if (text !== undefined) await writeFile(file, text)
      const before = a.requests.length + b.requests.length
      const result = await pipeline({ mode: 'compare', baselineFile: file, resultsDir: 'bad-baseline' })
      expect(result.configError).toBe(true)
      expect(result.verdict).toBe('error')
      expect(result.failure).toMatch(says)
      expect(result.summary).toContain('configuration error')
      expect(a.requests.length + b.requests.length).toBe(before)
    },
  )
})
