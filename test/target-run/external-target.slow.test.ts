/**
 * `engine: external`: per round the target's `run` command (test/helpers/bench-vllm.mjs, streaming against a
 * loopback engine) writes a vLLM-format result to `{out}`, which becomes the round; the cell is gated like any
 * other: the same engine passes, a slower one on the PR side is a regression.
 */
import { mkdtemp, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadPlan } from '../../src/config/index.js'
import { DEFAULTS, type ActionOptions } from '../../src/config/inputs.js'
import { ConfigError } from '../../src/core/errors.js'
import { shareOff, WAKE_MS } from '../helpers/load.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { runPipeline } from '../../src/run/pipeline.js'
import { readResultsFile } from '../../src/store/index.js'
import { ROOT } from '../helpers/root.js'
import { startScheduledServer, type ScheduledServer } from '../../harness/scheduled-server.js'

let fast: ScheduledServer
let slow: ScheduledServer
let cwd: string
const BENCH = join(ROOT, 'test/helpers/bench-vllm.mjs')

// A 50 ms token interval against 75 ms: decode 20 → 13.3 tok/s, far beyond the 5 % gate and timer jitter.
const GAP_MS = 50
beforeAll(async () => {
  ;[fast, slow] = await Promise.all([
    startScheduledServer({ ttftMs: 30, intervalMs: GAP_MS }),
    startScheduledServer({ ttftMs: 30, intervalMs: GAP_MS * 1.5 }),
  ])
  cwd = await mkdtemp(join(tmpdir(), 'lbg-external-'))
  const config = (url: string, defaults = '') =>
    [
      'version: 1',
      `defaults: { rounds: 3, discard: 1, request-timeout: 30s, quality: false${defaults} }`,
      'scenarios:',
      '  short: { input-tokens: 8, output-tokens: 16, concurrency: 2, requests: 4 }',
      'targets:',
      '  bench:',
      '    engine: external',
      `    url: ${url}`,
      '    format: vllm',
      `    run: node ${BENCH} --url {url} --out {out} --input-tokens {input-tokens} --output-tokens {output-tokens} --concurrency {concurrency} --requests {requests}`,
      '',
    ].join('\n')
  await writeFile(join(cwd, 'fast.yml'), config(fast.url))
  // The slower engine reads −33 %, past twice the limit: a regression whatever the noise, which a re-measurement to
  // confirm (3 more rounds at 75 ms a token) would not change.
  await writeFile(join(cwd, 'slow.yml'), config(slow.url, ', confirm: 0'))
  // A command that ignores {output-tokens}: 10 tokens where the scenario asks for 16.
  await writeFile(
    join(cwd, 'short.yml'),
    config(fast.url).replace('--output-tokens {output-tokens}', '--output-tokens 10'),
  )
})
afterAll(async () => {
  await Promise.all([fast?.close(), slow?.close()])
})

const context = { event: 'pull_request', sha: 'f00d', ref: 'refs/pull/1/merge', runUrl: '' }
const pipeline = (options: Partial<ActionOptions>) =>
  runPipeline({
    options: { ...DEFAULTS, mode: 'run', ...options },
    context,
    log: memoryLogger(),
    toolVersion: 'test',
    cwd,
    detectHardware: async () => 'cpu',
  })

describe('engine: external', () => {
  it('runs the command once per round and reads each result as a round', async () => {
    const run = await pipeline({ config: 'fast.yml', resultsDir: 'base' })
    const results = await readResultsFile(run.resultsFile, 'base')
    const [cell] = results.cells
    expect(cell.status, cell.error ?? '').toBe('ok')
    expect(cell.id).toBe('bench/short')
    expect(cell.engine).toBe('external')
    expect(cell.rounds.map((r) => r.steady)).toEqual([false, true, true])
    // The tool achieved the scenario's lengths.
    expect(cell.flags).toEqual([])
    expect(cell.ingested?.tool).toBe('vllm')
    expect(await readdir(join(cwd, 'base/external'))).toHaveLength(3)
    expect(run.summary).toContain('measured by vllm; not mapped: ')
    // 50 ms between tokens: TPOT 50 ms on the schedule. The tool measures in its own process: each end of a
    // 15-gap window may be two late wake-ups of a loaded runner off (test/helpers/load.ts), still short of 75 ms.
    const share = shareOff(15 * GAP_MS, 2 * WAKE_MS)
    expect(cell.metrics!.tpot_ms.mean).toBeGreaterThanOrEqual(GAP_MS * (1 - share))
    expect(cell.metrics!.tpot_ms.mean).toBeLessThanOrEqual(GAP_MS * (1 + share))
  })

  it('passes the same engine and fails a slower one against that baseline', async () => {
    const same = await pipeline({
      config: 'fast.yml',
      resultsDir: 'same',
      mode: 'compare',
      baselineFile: 'base/results.json',
    })
    expect(same.verdict, same.summary).not.toBe('regression')
    const slower = await pipeline({
      config: 'slow.yml',
      resultsDir: 'slow',
      mode: 'compare',
      baselineFile: 'base/results.json',
    })
    expect(slower.verdict, slower.summary).toBe('regression')
    expect(slower.failure).toMatch(/regress/i)
  })

  it('flags a run that measured another workload than the scenario, and fails it against a baseline without the miss', async () => {
    const short = await pipeline({
      config: 'short.yml',
      resultsDir: 'short',
      mode: 'compare',
      baselineFile: 'base/results.json',
    })
    const [cell] = (await readResultsFile(short.resultsFile, 'short')).cells
    expect(cell.flags).toEqual(['lengths-missed: output 10/16'])
    expect(cell.verdict.status, short.summary).toBe('regression')
    expect(cell.verdict.failures?.join('\n')).toContain('lengths-missed: output 10/16')
  })

  it('makes every cell an error naming a command that fails', async () => {
    await writeFile(
      join(cwd, 'broken.yml'),
      [
        'version: 1',
        'scenarios: { s: { input-tokens: 8, output-tokens: 8, concurrency: 1 } }',
        'targets:',
        '  bad: { engine: external, format: vllm, run: "echo nope >&2; exit 3", request-timeout: 5s }',
        '',
      ].join('\n'),
    )
    const run = await pipeline({ config: 'broken.yml', resultsDir: 'broken' })
    const [cell] = (await readResultsFile(run.resultsFile, 'broken')).cells
    expect(cell.status).toBe('error')
    expect(cell.error).toContain('run exited with code 3')
    expect(cell.error).toContain('nope')
  })

  it('fails validation naming a missing run or format, or a placeholder run does not get', async () => {
    const problems = async (target: string) => {
      await writeFile(
        join(cwd, 'invalid.yml'),
        [
          'version: 1',
          'scenarios: { s: { input-tokens: 8, output-tokens: 8, concurrency: 1 } }',
          'targets:',
          `  t: ${target}`,
          '',
        ].join('\n'),
      )
      const error = await loadPlan('invalid.yml', { cwd }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConfigError)
      return (error as ConfigError).problems.join('\n')
    }
    expect(await problems('{ engine: external, format: vllm }')).toContain(
      'targets.t.run: required for engine external',
    )
    expect(await problems('{ engine: external, run: "true {out}" }')).toContain(
      'targets.t.format: required for engine external',
    )
    expect(await problems('{ engine: external, format: locust, run: "true" }')).toContain(
      'targets.t.format: must be one of vllm, sglang, llama-bench, guidellm, aiperf',
    )
    expect(await problems('{ engine: external, format: vllm, run: "bench --out {out} --gpu {gpu}" }')).toContain(
      'targets.t.run: unknown placeholder {gpu}',
    )
  })
})
