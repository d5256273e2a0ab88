// `only` globs over cell ids and `shard: i/n` over targets.
import { describe, expect, it } from 'vitest'
import { buildPlan, matchesOnly } from '../../src/config/index.js'
import type { Plan } from '../../src/core/plan.js'
import { shardOf } from '../../src/config/select.js'
import { TEST_ENGINES } from './engines.js'

/** Targets `t1…` with the given numbers of scenarios, in file order. */
function planWith(cellsPerTarget: number[], options: { only?: string; shard?: string } = {}): Plan {
  const width = Math.max(...cellsPerTarget)
  const scenarios = Object.fromEntries(
    Array.from({ length: width }, (_, i) => [`s${i + 1}`, { 'input-tokens': 8, 'output-tokens': 8 }]),
  )
  const targets = Object.fromEntries(
    cellsPerTarget.map((n, i) => [
      `t${i + 1}`,
      { engine: 'vllm', launch: 'x', scenarios: Object.keys(scenarios).slice(0, n) },
    ]),
  )
  return buildPlan(
    { version: 1, scenarios, targets },
    { configPath: 'c.yml', resolvedPath: '/c.yml', engines: TEST_ENGINES, ...options },
  )
}

describe('only', () => {
  it.each([
    ['*-nvfp4-*/*', 'qwen-nvfp4-vllm/chat-1k', true],
    ['*-nvfp4-*/*', 'qwen-fp8-vllm/chat-1k', false],
    ['vllm-fp8/chat-1k', 'vllm-fp8/chat-1k', true],
    ['vllm-fp8/chat-1k', 'vllm-fp8/chat-1k0', false],
    ['vllm-fp8', 'vllm-fp8/long-100k', true], // no slash: every scenario of the target
    ['vllm-fp8', 'vllm-fp8x/long-100k', false],
    ['vllm-*', 'vllm-fp8/chat-1k', true],
    ['*', 'anything/at-all', true],
    ['*/chat-?k', 'a/chat-1k', true],
    ['*/chat-?k', 'a/chat-10k', false],
    ['*/*/x', 'a/b', false],
    ['**', 'a/b', true],
    ['**1k', 'a/chat-1k', false], // slash-less, so it names targets: **1k/*
    ['**1k', 'model-1k/chat', true],
    ['**/*-1k', 'a/chat-1k', true],
    ['a*b', 'a/b', false], // `*` stays within a segment, and a slash-less pattern means a*b/*
    ['q.en/*', 'qwen/x', false], // dots are literal
    ['  vllm-fp8/chat-1k , sglang/*', 'sglang/x', true],
    ['', 'any/cell', true],
    [' , ', 'any/cell', true],
  ])('%j on %s → %s', (only, id, expected) => {
    expect(matchesOnly(id, only)).toBe(expected)
  })

  it('matches in linear time: a pattern that makes a backtracking matcher explode does not', () => {
    // Eight `**a` against 60 characters took over a minute as a regular expression; the state set takes a few ms.
    // CPU time, which a loaded runner does not stretch (a descheduled process accrues none).
    const pattern = '**a'.repeat(8) + '**b'
    const id = `${'a'.repeat(59)}/c`
    const started = process.cpuUsage()
    expect(matchesOnly(id, pattern)).toBe(false)
    expect(matchesOnly(`${'a'.repeat(40)}/b`, '**a'.repeat(8) + '**')).toBe(true)
    expect(matchesOnly(id, `${'*'.repeat(2000)}/x`)).toBe(false)
    const used = process.cpuUsage(started)
    expect((used.user + used.system) / 1000).toBeLessThan(500)
  })

  it('keeps the selected cells and drops targets left with none', () => {
    const p = planWith([2, 3, 1], { only: 't1/s2,t2/s?' })
    expect(p.cells.map((c) => c.id)).toEqual(['t1/s2', 't2/s1', 't2/s2', 't2/s3'])
    expect(p.targets.map((t) => [t.id, t.scenarios.map((s) => s.id)])).toEqual([
      ['t1', ['s2']],
      ['t2', ['s1', 's2', 's3']],
    ])
  })
})

describe('shard', () => {
  it('assigns targets greedily in file order to the shard with the fewest cells, ties to the lowest', () => {
    // loads: t1(3)→1 [3,0]; t2(1)→2 [3,1]; t3(1)→2 [3,2]; t4(2)→2 [3,4]; t5(1)→1 [4,4]
    const p = planWith([3, 1, 1, 2, 1])
    expect(shardOf(p.targets, 2)).toEqual([1, 2, 2, 2, 1])
    expect(planWith([3, 1, 1, 2, 1], { shard: '1/2' }).targets.map((t) => t.id)).toEqual(['t1', 't5'])
    expect(planWith([3, 1, 1, 2, 1], { shard: '2/2' }).cells.map((c) => c.id)).toEqual([
      't2/s1',
      't3/s1',
      't4/s1',
      't4/s2',
    ])
  })

  it.each([2, 3, 4, 7])('splits into %i disjoint shards that cover every cell, keep targets whole and balance', (n) => {
    const sizes = [4, 1, 3, 3, 2, 5, 1, 1, 2, 4, 3]
    const all = planWith(sizes)
    const shards = Array.from({ length: n }, (_, i) => planWith(sizes, { shard: `${i + 1}/${n}` }))
    const ids = shards.flatMap((s) => s.cells.map((c) => c.id))
    expect([...ids].sort()).toEqual(all.cells.map((c) => c.id).sort())
    for (const s of shards)
      for (const t of s.targets) expect(t.scenarios).toHaveLength(sizes[Number(t.id.slice(1)) - 1])
    const loads = shards.map((s) => s.cells.length)
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(Math.max(...sizes))
    // Deterministic: the same inputs give the same shard.
    expect(planWith(sizes, { shard: `1/${n}` }).cells).toEqual(shards[0].cells)
  })

  it('applies to the plan `only` left', () => {
    // only t2, t3, t4 remain: t2(1)→1, t3(1)→2, t4(2)→1
    const p = planWith([3, 1, 1, 2], { only: 't2,t3,t4', shard: '1/2' })
    expect(p.targets.map((t) => t.id)).toEqual(['t2', 't4'])
  })

  it('may leave a shard empty when there are fewer targets than shards', () => {
    const p = planWith([1, 1], { shard: '3/3' })
    expect(p.cells).toEqual([])
  })
})
