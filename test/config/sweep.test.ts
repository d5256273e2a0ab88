// Concurrency sweeps (SPEC §16): `concurrency: [1, 2, 4, 8]` expands into one closed-loop cell per value,
// `<scenario>@c<N>`; the scenario's name still selects it, everywhere scenarios are picked by name.
import { describe, expect, it } from 'vitest'
import { buildPlan, formatPlan, matchesOnly } from '../../src/config/index.js'
import { ConfigError } from '../../src/core/errors.js'
import type { Plan } from '../../src/core/plan.js'
import { sweepPoint, sweepPointId, withoutSweepPoint } from '../../src/core/sweep.js'
import { TEST_ENGINES } from './engines.js'

type Scenario = Record<string, unknown>

function file(chat: Scenario, targets: Record<string, Scenario> = { 'qwen-fp8': {} }) {
  return {
    version: 1,
    scenarios: {
      'chat-1k': { 'input-tokens': 1024, 'output-tokens': 128, ...chat },
      single: { 'input-tokens': 64, 'output-tokens': 16, concurrency: 2 },
    },
    targets: Object.fromEntries(
      Object.entries(targets).map(([id, extra]) => [id, { engine: 'vllm', launch: 'x', ...extra }]),
    ),
  }
}

function plan(data: unknown, options: { only?: string; shard?: string } = {}): Plan {
  return buildPlan(data, { configPath: 'sweep.yml', resolvedPath: '/sweep.yml', engines: TEST_ENGINES, ...options })
}

function problems(data: unknown): string[] {
  try {
    plan(data)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('expected a ConfigError, got a plan')
}

const SWEEP = { concurrency: [1, 2, 4, 8] }

describe('a concurrency list', () => {
  it('expands into one cell per value, ids <target>/<scenario>@c<N>, each an ordinary closed-loop scenario', () => {
    const p = plan(file(SWEEP))
    expect(p.cells.map((c) => c.id)).toEqual([
      'qwen-fp8/chat-1k@c1',
      'qwen-fp8/chat-1k@c2',
      'qwen-fp8/chat-1k@c4',
      'qwen-fp8/chat-1k@c8',
      'qwen-fp8/single',
    ])
    expect(
      p.targets[0].scenarios.map(({ id, concurrency, requests, rate, sweep }) => [
        id,
        concurrency,
        requests,
        rate,
        sweep,
      ]),
    ).toEqual([
      ['chat-1k@c1', 1, 1, undefined, 'chat-1k'],
      ['chat-1k@c2', 2, 2, undefined, 'chat-1k'],
      ['chat-1k@c4', 4, 4, undefined, 'chat-1k'],
      ['chat-1k@c8', 8, 8, undefined, 'chat-1k'],
      ['single', 2, 2, undefined, undefined],
    ])
    expect(p.cells[2].scenario).toMatchObject({ inputTokens: 1024, outputTokens: 128 })
  })

  it('runs its points in ascending order whatever order the list is written in, with the same ids', () => {
    const ids = plan(file({ concurrency: [8, 1, 4, 2] })).cells.map((c) => c.id)
    expect(ids.slice(0, 4)).toEqual(
      plan(file(SWEEP))
        .cells.slice(0, 4)
        .map((c) => c.id),
    )
  })

  it('gives every point the requests the file gives, when there are enough for each', () => {
    const requests = plan(file({ ...SWEEP, requests: 16 })).targets[0].scenarios.map((s) => s.requests)
    expect(requests).toEqual([16, 16, 16, 16, 2])
  })

  it('leaves a scalar concurrency as it was: no suffix, no sweep', () => {
    const p = plan(file({ concurrency: 8 }))
    expect(p.cells.map((c) => c.id)).toEqual(['qwen-fp8/chat-1k', 'qwen-fp8/single'])
    expect(p.targets[0].scenarios[0]).toEqual({
      id: 'chat-1k',
      inputTokens: 1024,
      outputTokens: 128,
      concurrency: 8,
      requests: 8,
    })
  })

  it('is a list of one point: a sweep all the same', () => {
    expect(plan(file({ concurrency: [4] })).cells[0].id).toBe('qwen-fp8/chat-1k@c4')
  })
})

describe('the point ids', () => {
  it.each([
    ['chat-1k@c4', { base: 'chat-1k', concurrency: 4 }],
    ['qwen-fp8/chat-1k@c128', { base: 'qwen-fp8/chat-1k', concurrency: 128 }],
    ['chat-1k', undefined],
    ['chat-1k@c', undefined],
    ['chat-1k@c04', undefined],
    ['chat-1k@c4x', undefined],
  ])('%s → %j', (id, point) => {
    expect(sweepPoint(id)).toEqual(point)
    expect(withoutSweepPoint(id)).toBe(point?.base ?? id)
  })

  it('round-trip', () => {
    expect(sweepPoint(sweepPointId('long.8k_v2', 32))).toEqual({ base: 'long.8k_v2', concurrency: 32 })
  })
})

describe('selecting a sweep by its scenario name', () => {
  it("a target's scenarios list: the name runs every point, a point's id that point alone, in the list's order", () => {
    const p = plan(
      file(SWEEP, {
        all: { scenarios: ['single', 'chat-1k'] },
        one: { scenarios: ['chat-1k@c4'] },
        both: { scenarios: ['chat-1k@c8', 'single'] },
      }),
    )
    expect(p.cells.map((c) => c.id)).toEqual([
      'all/single',
      'all/chat-1k@c1',
      'all/chat-1k@c2',
      'all/chat-1k@c4',
      'all/chat-1k@c8',
      'one/chat-1k@c4',
      'both/chat-1k@c8',
      'both/single',
    ])
  })

  it.each([
    ['qwen-fp8/chat-1k', ['qwen-fp8/chat-1k@c1', 'qwen-fp8/chat-1k@c2', 'qwen-fp8/chat-1k@c4', 'qwen-fp8/chat-1k@c8']],
    ['*/chat-1k', ['qwen-fp8/chat-1k@c1', 'qwen-fp8/chat-1k@c2', 'qwen-fp8/chat-1k@c4', 'qwen-fp8/chat-1k@c8']],
    ['*/chat-1k@c4', ['qwen-fp8/chat-1k@c4']],
    ['*/chat-1k@c?', ['qwen-fp8/chat-1k@c1', 'qwen-fp8/chat-1k@c2', 'qwen-fp8/chat-1k@c4', 'qwen-fp8/chat-1k@c8']],
    ['qwen-fp8/single', ['qwen-fp8/single']],
    [
      'qwen-fp8',
      ['qwen-fp8/chat-1k@c1', 'qwen-fp8/chat-1k@c2', 'qwen-fp8/chat-1k@c4', 'qwen-fp8/chat-1k@c8', 'qwen-fp8/single'],
    ],
  ])('only %j', (only, ids) => {
    expect(plan(file(SWEEP), { only }).cells.map((c) => c.id)).toEqual(ids)
  })

  it('only: the scenario name selects the points of a baseline the run compares with, too', () => {
    expect(matchesOnly('qwen-fp8/chat-1k@c16', 'qwen-fp8/chat-1k')).toBe(true)
    expect(matchesOnly('qwen-fp8/chat-1k@c16', '*/chat-1k@c4')).toBe(false)
    expect(matchesOnly('qwen-fp8/chat-1k0@c4', 'qwen-fp8/chat-1k')).toBe(false)
  })

  it('only: a point the sweep does not have matches no cell, and says which cells there are', () => {
    expect(() => plan(file(SWEEP), { only: '*/chat-1k@c3' })).toThrow(/only: "\*\/chat-1k@c3" matches no cell/)
  })
})

describe('bad sweeps, each named by its field', () => {
  it.each([
    ['an empty list', { concurrency: [] }, 'scenarios.chat-1k.concurrency: must list at least one value'],
    ['a value listed twice', { concurrency: [1, 2, 2] }, 'scenarios.chat-1k.concurrency[2]: 2 is listed twice'],
    [
      'zero',
      { concurrency: [0, 4] },
      'scenarios.chat-1k.concurrency[0]: must be a whole number from 1 to 4096 (got 0)',
    ],
    [
      'past the socket budget',
      { concurrency: [1, 5000] },
      'scenarios.chat-1k.concurrency[1]: must be a whole number from 1 to 4096 (got 5000)',
    ],
    [
      'a fraction',
      { concurrency: [1, 2.5] },
      'scenarios.chat-1k.concurrency[1]: must be a whole number from 1 to 4096 (got 2.5)',
    ],
    [
      'a word',
      { concurrency: [1, 'eight'] },
      'scenarios.chat-1k.concurrency[1]: must be a whole number from 1 to 4096 (got "eight")',
    ],
    [
      'a scalar fraction',
      { concurrency: 2.5 },
      'scenarios.chat-1k.concurrency: must be a whole number from 1 to 4096, or a list of them (a sweep) (got 2.5)',
    ],
    [
      'more points than a sweep holds',
      { concurrency: Array.from({ length: 33 }, (_, i) => i + 1) },
      'scenarios.chat-1k.concurrency: a sweep has at most 32 values (got 33)',
    ],
    [
      'a rate',
      { ...SWEEP, rate: 2, requests: 8 },
      'scenarios.chat-1k.rate: a concurrency sweep is closed loop: give either rate (open loop) or a concurrency list, not both',
    ],
    [
      'fewer requests than some of its values',
      { ...SWEEP, requests: 3 },
      'scenarios.chat-1k.requests: 3 is less than concurrency 4, 8 of the sweep 1, 2, 4, 8',
    ],
  ])('%s', (_, chat, says) => {
    const found = problems(file(chat))
    expect(
      found.some((p) => p.startsWith(says)),
      found.join('\n'),
    ).toBe(true)
  })

  it('the scalar message stays as it was', () => {
    expect(problems(file({ concurrency: 8, requests: 4 }))).toEqual([
      'scenarios.chat-1k.requests: 4 is less than concurrency 8: the concurrency would never be reached',
    ])
  })

  it.each([
    [
      ['chat-1k@c3'],
      'targets.t.scenarios[0]: unknown scenario "chat-1k@c3" (the sweep chat-1k has chat-1k@c1, chat-1k@c2, chat-1k@c4, chat-1k@c8)',
    ],
    [['single@c2'], 'targets.t.scenarios[0]: unknown scenario "single@c2" (single is not a concurrency sweep)'],
    [['nope@c1'], 'targets.t.scenarios[0]: unknown scenario "nope@c1" (defined: chat-1k, single)'],
    [['chat-1k', 'chat-1k@c4'], 'targets.t.scenarios[1]: selects chat-1k@c4 again (an earlier entry already runs it)'],
  ])('a target listing %j', (list, says) => {
    expect(problems(file(SWEEP, { t: { scenarios: list } }))).toEqual([says])
  })
})

describe('validate', () => {
  it("prints each sweep's effect before the targets, and every point as a cell", () => {
    const text = formatPlan(plan(file({ concurrency: [8, 1, 2, 4] }, { a: {}, b: { scenarios: ['chat-1k@c2'] } })))
    const lines = text.split('\n')
    expect(lines.slice(0, 3)).toEqual([
      'Plan for sweep.yml (/sweep.yml)',
      '2 targets, 6 cells',
      'chat-1k: concurrency sweep 1, 2, 4, 8 → cells chat-1k@c1 … @c8',
    ])
    expect(lines).toContain('    a/chat-1k@c4  1024 in → 128 out, concurrency 4, 4 requests/round')
    expect(lines).toContain('    b/chat-1k@c2  1024 in → 128 out, concurrency 2, 2 requests/round')
  })

  it('prints what is left of a sweep after only', () => {
    const lines = formatPlan(plan(file(SWEEP), { only: '*/chat-1k@c4' })).split('\n')
    expect(lines[2]).toBe('chat-1k: concurrency sweep 4 → cell chat-1k@c4')
  })
})
