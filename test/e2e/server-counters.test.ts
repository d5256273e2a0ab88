/**
 * Server counters end to end, through the bundled action and a loopback fake vLLM engine: its /metrics counts a
 * preemption for every request at the PR only (`--preempt-every 1`), and the PR streams at 24 ms a token instead
 * of 20 (decode about 17 % slower, past the 5 % limit). Each steady round of 4 requests then moves the counter by
 * exactly 4, the baseline's by 0: the regression line names the preemptions.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runPrAction } from '../helpers/action.js'
import { fakeLaunch } from '../engines/fake.js'

function config(extra: string): string {
  const launch = fakeLaunch('vllm', `--ttft-ms 5 ${extra}`)
  return [
    'version: 1',
    'defaults: { rounds: 3, discard: 1, ready-timeout: 20s, request-timeout: 30s, confirm: 0, max-rounds: 3, quality: false }',
    'gate:',
    '  decode: { max-regression: 5% }',
    'scenarios:',
    '  chat: { input-tokens: 16, output-tokens: 40, concurrency: 2, requests: 4 }',
    'targets:',
    `  fake: { engine: vllm, launch: ${JSON.stringify(launch)} }`,
    '',
  ].join('\n')
}

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-server-e2e-'))
  await writeFile(join(cwd, 'base.yml'), config('--itl-ms 20'))
  await writeFile(join(cwd, 'pr.yml'), config('--itl-ms 24 --preempt-every 1'))
})

describe('server counters per round (bundled action, fake vLLM /metrics)', () => {
  it('preemptions growing only at a 15 % slower PR: regression, and its line names the preemptions', async () => {
    const base = await runPrAction({ cwd, config: 'base.yml', out: 'base' })
    expect(base.code, base.stdout).toBe(0)
    const steady = base.cell.rounds.filter((r) => r.steady)
    expect(steady.map((r) => r.server?.deltas['vllm:num_preemptions_total'])).toEqual([0, 0])
    // The discarded round is not watched.
    expect(base.cell.rounds[0].server).toBeUndefined()

    const pr = await runPrAction({ cwd, config: 'pr.yml', out: 'pr', baseline: 'base/results.json' })
    expect(pr.cell.verdict.metrics.decode?.status, pr.stdout).toBe('regression')
    expect(pr.cell.rounds.filter((r) => r.steady).map((r) => r.server?.deltas['vllm:num_preemptions_total'])).toEqual([
      4, 4,
    ])
    expect(pr.cell.verdict.serverChanges).toEqual(['preemptions 0 → 4 per round'])
    expect(pr.report).toMatch(/\*\*fake\/chat\*\*: .*decode.*; server: preemptions 0 → 4 per round/)
    expect(pr.report).toContain('- round 2: server preemptions +4 · requests finished +4')
    expect(pr.code).toBe(1)
  }, 180_000)
})

/**
 * An endpoint that says what cannot be: prefix-cache hits 1,000 times the queried tokens at the PR (a hit rate of
 * 100,000 %), a running-requests gauge of −7, and a preemption counter that goes backwards (a restart between
 * scrapes). The baseline's endpoint says 50 % and counts nothing odd. The PR's decode is 17 % slower, so its line
 * names the counters that changed with it.
 */
describe('server counters that cannot be (bundled action, fake vLLM /metrics)', () => {
  const BASE = [
    'vllm:prefix_cache_queries_total{engine="0"} {requests*100}',
    'vllm:prefix_cache_hits_total{engine="0"} {requests*50}',
  ]
  const PR = [
    'vllm:prefix_cache_queries_total{engine="0"} {requests*100}',
    'vllm:prefix_cache_hits_total{engine="0"} {requests*100000}',
    'vllm:num_requests_running{engine="1"} -7',
    'vllm:num_preemptions_total{engine="1"} {requests*-1}',
  ]

  it('shares stay within 0–100 %, a negative gauge and a backwards counter are missing, in the results and the report', async () => {
    await writeFile(join(cwd, 'base.prom'), BASE.join('\n') + '\n')
    await writeFile(join(cwd, 'odd.prom'), PR.join('\n') + '\n')
    await writeFile(join(cwd, 'base-odd.yml'), config(`--itl-ms 20 --metrics-extra '${join(cwd, 'base.prom')}'`))
    await writeFile(join(cwd, 'pr-odd.yml'), config(`--itl-ms 24 --metrics-extra '${join(cwd, 'odd.prom')}'`))
    const base = await runPrAction({ cwd, config: 'base-odd.yml', out: 'base-odd' })
    expect(base.code, base.stdout).toBe(0)
    const pr = await runPrAction({ cwd, config: 'pr-odd.yml', out: 'pr-odd', baseline: 'base-odd/results.json' })
    expect(pr.cell.verdict.metrics.decode?.status, pr.stdout).toBe('regression')

    const steady = pr.cell.rounds.filter((r) => r.steady).map((r) => r.server!)
    expect(steady).toHaveLength(2)
    for (const s of steady) {
      expect(s.rates?.prefix_cache_hit_rate).toBe(1)
      expect(s.peaks['vllm:num_requests_running']).toBeUndefined()
      expect(s.means['vllm:num_requests_running']).toBeUndefined()
      expect(s.deltas['vllm:num_preemptions_total']).toBeUndefined()
      expect(s.deltas['vllm:request_success_total']).toBe(4)
    }
    // The hit tokens moved too (the raw counter is what the engine says); the rate is clamped.
    expect(pr.cell.verdict.serverChanges).toContain('prefix-cache hit rate 50.0 % → 100 %')
    const report = pr.report + (await readFile(join(cwd, 'pr-odd', 'comment.md'), 'utf8'))
    expect(report).toContain('prefix-cache hit rate 50.0 % → 100 %')
    expect(report).toContain('prefix-cache hit rate 100 %')
    // No percentage in the report or the comment is over 100, and no server figure is negative.
    const percents = [...report.matchAll(/([\d,.]+) ?%/g)].map((m) => Number(m[1].replace(/,/g, '')))
    expect(percents.length).toBeGreaterThan(0)
    expect(Math.max(...percents)).toBeLessThanOrEqual(100)
    // What a line says after `server` is the engine's figures (before it, the metric deltas, which may be negative).
    const serverParts = report.split('\n').flatMap((l) => (l.includes('server') ? [l.slice(l.indexOf('server'))] : []))
    expect(serverParts.length).toBeGreaterThan(0)
    for (const part of serverParts) expect(part).not.toMatch(/(^|[\s(])[-−]\d/)
  }, 180_000)
})
