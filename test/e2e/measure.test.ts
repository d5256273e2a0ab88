/**
 * End to end through the bundled action: `node dist/index.js` with the runner's environment
 * against a loopback OpenAI-compatible server that streams on an exact schedule. Proves the
 * figures the action reports are the schedule's (SPEC §5) and that it writes results.json,
 * report.md, the job summary and the outputs.
 *
 * The action measures in its own process, so the bounds allow each stamp it takes the delay of a loaded runner's
 * wake-ups (test/helpers/load.ts): the server never writes early, so TTFT reads at least the schedule's and long by at
 * most the server's own lateness on the first token (it records that) and two wake-ups (the request reaching the
 * server, the token reaching the client). Each end of the decode window is late by up to two wake-ups (the server's
 * write, the client's read). The schedule's token gap is wider than those allowances, so a TTFT taken at the second
 * token, or a TPOT over n rather than n − 1 gaps, still falls outside them.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { runAction } from '../helpers/action.js'
import { shareOff, WAKE_MS } from '../helpers/load.js'
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
      // No quality probe: its benchmark-shaped requests would take 48 gaps each; test/e2e/quality.test.ts covers it.
      'defaults: { rounds: 2, discard: 1, ready-timeout: 10s, request-timeout: 30s, quality: false, api: ' +
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

/** First token 300 ms after the request, then a chunk every 200 ms: a gap more than twice the two-wake-up allowance. */
const TTFT_MS = 300
const GAP_MS = 200

/** TTFT never reads low; it reads long by the server's lateness on a first token and two wake-ups at most. */
function expectScheduledTtft(ttft: number): void {
  expect(ttft).toBeGreaterThanOrEqual(TTFT_MS)
  expect(ttft).toBeLessThanOrEqual(TTFT_MS + Math.max(0, ...server!.firstTokenLateness) + 2 * WAKE_MS)
}

/** `value` within the share a figure over `gaps` token gaps may be off, its ends each up to two wake-ups late. */
function expectNear(value: number, expected: number, gaps: number): void {
  const share = shareOff(gaps * GAP_MS, 2 * WAKE_MS)
  expect(value).toBeGreaterThanOrEqual(expected * (1 - share))
  expect(value).toBeLessThanOrEqual(expected * (1 + share))
}

describe('bundled action against a scheduled loopback server', () => {
  it('reports TTFT, TPOT and decode speed of the schedule and writes every artefact', async () => {
    // Schedule: first token 300 ms after the request, then one token every 200 ms; 4 concurrent, 8 tokens.
    const { run, results, cwd } = await runAgainst(
      { ttftMs: TTFT_MS, intervalMs: GAP_MS },
      { outputTokens: 8, concurrency: 4 },
    )
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const cell = results.cells[0]
    expect(cell.id).toBe('loopback/sched')
    expect(cell.status).toBe('ok')
    const m = cell.metrics!
    expectScheduledTtft(m.ttft_ms.mean)
    // 7 gaps of 200 ms: TPOT 200 ms, 5 tok/s (over 8 gaps, a count off by one, it would read 175 ms).
    expectNear(m.tpot_ms.mean, GAP_MS, 7)
    expectNear(m.decode_tps.mean, 1000 / GAP_MS, 7)
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
    // 24 tokens in chunks of 3 every 200 ms: 8 chunks, the last 7 × 200 ms after the first.
    const { run, results } = await runAgainst(
      { ttftMs: TTFT_MS, intervalMs: GAP_MS, tokensPerChunk: 3 },
      { outputTokens: 24, concurrency: 4 },
    )
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const m = results.cells[0].metrics!
    const expected = 23 / (7 * 0.2) // (n − 1) / (t_last − t_first) = 16.4 tok/s, over 3× the chunk rate of 5/s
    expectNear(m.decode_tps.mean, expected, 7)
    expectNear(m.itl_ms.mean, GAP_MS, 7) // ITL stays per chunk
    expectScheduledTtft(m.ttft_ms.mean)
  })

  it('ignores a role-only first chunk on the chat API', async () => {
    // The role chunk arrives at once, before any token (as llama.cpp does); TTFT must wait for text.
    const { run, results } = await runAgainst(
      { ttftMs: TTFT_MS, intervalMs: GAP_MS, roleChunk: 'early' },
      { outputTokens: 8, concurrency: 4, api: 'chat' },
    )
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const m = results.cells[0].metrics!
    // At least the schedule's TTFT: the role chunk, at once, was not taken for the first token; below the second.
    expectScheduledTtft(m.ttft_ms.mean)
    expectNear(m.tpot_ms.mean, GAP_MS, 7)
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
    // Fast: nothing is waited for. The shortest wait a run that got past validation would make is a launch's
    // readiness poll (seconds) and at most the ready-timeout (20 min by default); starting Node and the bundle takes
    // about a second on a quiet runner, several beside another suite. The figure is printed above.
    expect(run.elapsedMs).toBeLessThan(30_000)
  })

  it('rejects a bad action input by name before reading the matrix file', async () => {
    const run = await runAction({ inputs: { config: 'missing.yml', mode: 'gate', 'fail-on-error': 'yes' } })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('input mode: "gate" is not one of auto, compare, update-baseline, run, merge')
    expect(run.stdout).toContain('input fail-on-error: "yes" is not a boolean')
    expect(run.summary).toContain('input mode')
  })
})
