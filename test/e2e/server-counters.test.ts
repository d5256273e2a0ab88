/**
 * Server counters end to end, through the bundled action and a loopback fake vLLM engine: its /metrics counts a
 * preemption for every request at the PR only (`--preempt-every 1`), and the PR streams at 24 ms a token instead
 * of 20 (decode about 17 % slower, past the 5 % limit). Each steady round of 4 requests then moves the counter by
 * exactly 4, the baseline's by 0: the regression line names the preemptions.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
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
