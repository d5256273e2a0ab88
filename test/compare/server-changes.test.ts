/** Which engine counters changed with a cell: from 0 to above 0, or beyond twice the round-to-round spread. */
import { describe, expect, it } from 'vitest'
import type { RoundResult } from '../../src/core/measurements.js'
import { serverChanges } from '../../src/compare/server-changes.js'
import { round } from '../helpers/builders.js'

const P = 'vllm:num_preemptions_total'
const Q = 'vllm:prefix_cache_queries_total'

function rounds(deltas: Record<string, number>[], rates: (Record<string, number> | undefined)[] = []): RoundResult[] {
  return deltas.map((d, i) => ({
    ...round(i, true),
    server: { deltas: d, peaks: {}, means: {}, samples: 2, ...(rates[i] && { rates: rates[i] }) },
  }))
}

describe('serverChanges', () => {
  it('a counter that went from 0 to above 0 is named with its per-round means', () => {
    const base = rounds([{ [P]: 0 }, { [P]: 0 }, { [P]: 0 }])
    const now = rounds([{ [P]: 36 }, { [P]: 38 }, { [P]: 37 }])
    expect(serverChanges(now, base)).toEqual(['preemptions 0 → 37 per round'])
  })

  it('a change within twice the round-to-round spread is noise; beyond it, a change', () => {
    // Baseline 100 ± 10 (sd 10): a mean of 115 is within 2 sd, 125 is not.
    const base = rounds([{ [Q]: 90 }, { [Q]: 100 }, { [Q]: 110 }])
    expect(serverChanges(rounds([{ [Q]: 105 }, { [Q]: 115 }, { [Q]: 125 }]), base)).toEqual([])
    expect(serverChanges(rounds([{ [Q]: 115 }, { [Q]: 125 }, { [Q]: 135 }]), base)).toEqual([
      'prefix-cache queried tokens 100 → 125 per round',
    ])
  })

  it('a hit rate reads as percentages; rounds without server counters on either side say nothing', () => {
    const base = rounds([{}, {}], [{ prefix_cache_hit_rate: 0.92 }, { prefix_cache_hit_rate: 0.92 }])
    const now = rounds([{}, {}], [{ prefix_cache_hit_rate: 0.03 }, { prefix_cache_hit_rate: 0.03 }])
    expect(serverChanges(now, base)).toEqual(['prefix-cache hit rate 92.0 % → 3.00 %'])
    expect(serverChanges(now, [round(0, true)])).toEqual([])
    expect(serverChanges([round(0, true)], base)).toEqual([])
  })

  it('a stored file from a broken endpoint: a share over 1 reads as 100 %, a negative change says nothing', () => {
    const base = rounds([{ [P]: 0 }, { [P]: 0 }], [{ prefix_cache_hit_rate: 0.5 }, { prefix_cache_hit_rate: 0.5 }])
    const now = rounds([{ [P]: -40 }, { [P]: -40 }], [{ prefix_cache_hit_rate: 1000 }, { prefix_cache_hit_rate: 1000 }])
    expect(serverChanges(now, base)).toEqual(['prefix-cache hit rate 50.0 % → 100 %'])
  })
})
