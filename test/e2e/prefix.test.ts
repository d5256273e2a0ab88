/**
 * Shared prefixes end to end, through the bundled action and the simulator's prefix cache (vLLM's automatic prefix
 * caching: 16-token blocks, hashed in a chain; sim/prefix-cache.ts). A scenario of 1,024-token prompts whose first
 * 900 tokens every request of a round shares: once the cold round has warmed the cache, each request prefills only
 * its unique 128 tokens (56 cached blocks = 896 tokens, hit rate 87.5 %), so its TTFT is a fraction of the same
 * scenario's without a prefix. At the PR the simulator's `no-prefix-cache` fault turns caching off: TTFT regresses,
 * and the line names the hit rate.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runPrAction } from '../helpers/action.js'

function config(fault: string): string {
  return [
    'version: 1',
    'defaults: { rounds: 3, discard: 1, confirm: 0, max-rounds: 3, ready-timeout: 20s, quality: false }',
    'scenarios:',
    '  shared: { input-tokens: 1024, output-tokens: 16, concurrency: 4, prefix-tokens: 900 }',
    '  unique: { input-tokens: 1024, output-tokens: 16, concurrency: 4 }',
    'targets:',
    `  sim: { engine: sim, profile: vllm-qwen36-27b-fp8, time-scale: 4, fault: ${fault} }`,
    '',
  ].join('\n')
}

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-prefix-e2e-'))
  await writeFile(join(cwd, 'base.yml'), config('none'))
  await writeFile(join(cwd, 'pr.yml'), config('no-prefix-cache'))
})

describe('shared prefix (bundled action, sim prefix cache)', () => {
  it('a warm shared prefix cuts TTFT; turning caching off at the PR regresses TTFT and names the hit rate', async () => {
    const base = await runPrAction({ cwd, config: 'base.yml', out: 'base' })
    expect(base.code, base.stdout).toBe(0)
    const shared = base.results.cells.find((c) => c.id === 'sim/shared')!
    const unique = base.results.cells.find((c) => c.id === 'sim/unique')!
    expect(shared.workload.prefixTokens).toBe(900)
    expect(unique.workload.prefixTokens).toBeUndefined()
    for (const r of shared.rounds.filter((x) => x.steady)) {
      expect(r.achieved.promptTokens).toEqual({ min: 1024, max: 1024 })
      // 56 whole blocks of the 900-token prefix: 896 of every 1,024 prompt tokens.
      expect(r.server?.rates?.prefix_cache_hit_rate).toBe(896 / 1024)
    }
    for (const r of unique.rounds.filter((x) => x.steady)) expect(r.server?.rates?.prefix_cache_hit_rate).toBe(0)
    const ratio = unique.metrics!.ttft_ms.mean / shared.metrics!.ttft_ms.mean
    console.log(
      `TTFT: shared prefix ${shared.metrics!.ttft_ms.mean.toFixed(1)} ms, unique ${unique.metrics!.ttft_ms.mean.toFixed(1)} ms (${ratio.toFixed(1)}×)`,
    )
    // Prefill of 128 instead of 1,024 tokens a request: well below, whatever the decode steps between.
    expect(ratio).toBeGreaterThan(3)
    expect(base.report).toMatch(/round 2: server .*prefix-cache hit rate 87\.5 %/)
    // The table shows it next to TTFT.
    expect(base.report).toMatch(/\| shared \|.*\| [\d.]+ · hit 87\.5% \|/)

    const pr = await runPrAction({ cwd, config: 'pr.yml', out: 'pr', baseline: 'base/results.json' })
    const cell = pr.results.cells.find((c) => c.id === 'sim/shared')!
    expect(cell.verdict.metrics.ttft?.status, pr.stdout).toBe('regression')
    expect(cell.verdict.serverChanges).toContain('prefix-cache hit rate 87.5 % → 0 %')
    expect(pr.report).toMatch(/\*\*sim\/shared\*\*: .*TTFT [^;]*\+\d+.*prefix-cache hit rate 87\.5 % → 0 %/)
    expect(pr.results.cells.find((c) => c.id === 'sim/unique')!.verdict.status).not.toBe('regression')
    expect(pr.code).toBe(1)
  }, 180_000)
})
