/**
 * End to end through the bundled action: `node dist/index.js` with the runner's environment
 * against a loopback OpenAI-compatible server that streams on an exact schedule. Proves the
 * figures the action reports are the schedule's (SPEC §5) and that it writes results.json,
 * report.md, the job summary and the outputs.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import {
  startScheduledServer,
  type ScheduledServer,
  type ScheduledServerOptions,
} from '../../harness/scheduled-server.js'

let server: ScheduledServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function runAgainst(
  schedule: ScheduledServerOptions,
  opts: { outputTokens: number; concurrency: number; api?: string },
) {
  server = await startScheduledServer(schedule)
  const { mkdtemp } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const cwd = await mkdtemp(join(tmpdir(), 'lbg-e2e-'))
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'defaults: { rounds: 2, discard: 1, ready-timeout: 10s, request-timeout: 30s, api: ' +
        (opts.api ?? 'completions') +
        ' }',
      'scenarios:',
      `  sched: { input-tokens: 64, output-tokens: ${opts.outputTokens}, concurrency: ${opts.concurrency} }`,
      'targets:',
      '  loopback:',
      '    engine: openai',
      `    url: ${server.url}`,
      '    model: scheduled',
      '',
    ].join('\n'),
  )
  const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' } })
  const results = JSON.parse(await readFile(join(cwd, 'out', 'results.json'), 'utf8')) as ResultsFile
  return { run, results, cwd }
}

describe('bundled action against a scheduled loopback server', () => {
  it('reports TTFT, TPOT and decode speed of the schedule and writes every artefact', async () => {
    // Schedule: first token 300 ms after the request, then one token every 25 ms; 4 concurrent, 32 tokens.
    const { run, results, cwd } = await runAgainst(
      { ttftMs: 300, intervalMs: 25 },
      { outputTokens: 32, concurrency: 4 },
    )
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const cell = results.cells[0]
    expect(cell.id).toBe('loopback/sched')
    expect(cell.status).toBe('ok')
    const m = cell.metrics!
    expect(m.ttft_ms.mean).toBeGreaterThanOrEqual(300)
    expect(m.ttft_ms.mean).toBeLessThanOrEqual(315)
    expect(Math.abs(m.tpot_ms.mean - 25) / 25).toBeLessThan(0.02)
    expect(Math.abs(m.decode_tps.mean - 40) / 40).toBeLessThan(0.02)
    expect(cell.rounds.map((r) => [r.index, r.steady, r.requests, r.errors])).toEqual([
      [0, false, 4, 0],
      [1, true, 4, 0],
    ])

    // results.json: SPEC §6 shape.
    expect(results.schema).toBe('llm-bench-gate/results@1')
    expect(results.run).toMatchObject({
      event: 'workflow_dispatch',
      sha: '0123456789abcdef0123456789abcdef01234567',
      tool: { name: 'llm-bench-gate' },
    })
    for (const key of ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms', 'decode_tps', 'prefill_tps']) {
      expect(Object.keys(m[key as 'ttft_ms']).sort()).toEqual(['max', 'mean', 'min', 'p50', 'p90', 'p99', 'std'])
    }
    for (const key of ['output_tps', 'total_tps', 'per_user_tps', 'request_tps'])
      expect(typeof m[key as 'output_tps']).toBe('number')
    expect(cell.verdict.status).toBe('new')

    // Outputs, report and job summary.
    expect(run.outputs.verdict).toBe('pass')
    expect(run.outputs.regressions).toBe('0')
    expect(run.outputs['results-file']).toBe(join(cwd, 'out', 'results.json'))
    expect(run.outputs['report-file']).toBe(join(cwd, 'out', 'report.md'))
    const report = await readFile(join(cwd, 'out', 'report.md'), 'utf8')
    expect(report).toContain('| loopback |')
    expect(report).toMatch(/Decode tok\/s.*TTFT ms.*TPOT ms.*Output tok\/s/)
    expect(run.summary).toContain('loopback')
    expect(run.summary).toContain('Decode tok/s')
    const leaderboard = await readFile(join(cwd, 'out', 'leaderboard.html'), 'utf8')
    expect(leaderboard).toMatch(/^<!doctype html>/i)
    expect(leaderboard).toContain(`data-value="${m.output_tps}"`)
  })

  it('counts decode speed from tokens, not chunks, when a chunk carries three tokens', async () => {
    // 300 tokens in chunks of 3 every 25 ms: 100 chunks, the last 99 × 25 ms after the first.
    const { run, results } = await runAgainst(
      { ttftMs: 300, intervalMs: 25, tokensPerChunk: 3 },
      { outputTokens: 300, concurrency: 4 },
    )
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const m = results.cells[0].metrics!
    const expected = 299 / (99 * 0.025) // (n − 1) / (t_last − t_first) = 120.8 tok/s, 3× the chunk rate of 40/s
    expect(Math.abs(m.decode_tps.mean - expected) / expected).toBeLessThan(0.02)
    expect(Math.abs(m.itl_ms.mean - 25) / 25).toBeLessThan(0.04) // ITL stays per chunk
    expect(m.ttft_ms.mean).toBeGreaterThanOrEqual(300)
    expect(m.ttft_ms.mean).toBeLessThanOrEqual(315)
  })

  it('ignores a role-only first chunk on the chat API', async () => {
    // The role chunk arrives at once, before any token (as llama.cpp does); TTFT must wait for text.
    const { run, results } = await runAgainst(
      { ttftMs: 300, intervalMs: 25, roleChunk: 'early' },
      { outputTokens: 32, concurrency: 4, api: 'chat' },
    )
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const m = results.cells[0].metrics!
    expect(m.ttft_ms.mean).toBeGreaterThanOrEqual(300)
    expect(m.ttft_ms.mean).toBeLessThanOrEqual(315)
    expect(Math.abs(m.tpot_ms.mean - 25) / 25).toBeLessThan(0.02)
    expect(server!.requests.at(-1)!.path).toBe('/v1/chat/completions')
  })
})

describe('bad input through the bundled action', () => {
  it('fails fast, names the field, launches nothing, and still writes the results and summary', async () => {
    const { mkdtemp } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const cwd = await mkdtemp(join(tmpdir(), 'lbg-e2e-bad-'))
    await writeFile(
      join(cwd, 'bench.yml'),
      'version: 1\nscenarios:\n  s: { input-tokens: 8, output-tokens: 0, concurrency: 1 }\ntargets:\n  t:\n    engine: vlm\n    launch: touch launched-{gpu}\n',
    )
    const run = await runAction({ cwd, inputs: { config: 'bench.yml', 'results-dir': 'out' } })
    console.log(`bad config: step failed after ${run.elapsedMs} ms (process start included)`)
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('targets.t.engine')
    expect(run.stdout).toContain('scenarios.s.output-tokens')
    expect(run.summary).toContain('targets.t.engine')
    expect(run.outputs.verdict).toBe('error')
    const results = JSON.parse(await readFile(join(cwd, 'out', 'results.json'), 'utf8')) as ResultsFile
    expect(results.cells).toEqual([])
    const { readdir } = await import('node:fs/promises')
    expect((await readdir(cwd)).filter((f) => f.startsWith('launched'))).toEqual([])
    expect(run.elapsedMs).toBeLessThan(3000)
  })

  it('rejects a bad action input by name before reading the matrix file', async () => {
    const run = await runAction({ inputs: { config: 'missing.yml', mode: 'gate', 'fail-on-error': 'yes' } })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('input mode: "gate" is not one of auto, compare, update-baseline, run, merge')
    expect(run.stdout).toContain('input fail-on-error: "yes" is not a boolean')
    expect(run.summary).toContain('input mode')
  })
})
