/** The details' per-round server line: counters that moved, rates, gauge peaks; "no server counters" without any. */
import { describe, expect, it } from 'vitest'
import { roundsSection } from '../../src/report/markdown/details.js'
import { serverLines } from '../../src/report/markdown/server-lines.js'
import { cell, round } from '../helpers/builders.js'

describe('serverLines', () => {
  it('one line per steady round with what moved; what did not move is left out', () => {
    const r = round(1, true)
    r.server = {
      deltas: { 'vllm:num_preemptions_total': 37, 'vllm:spec_decode_num_drafts_total': 0 },
      peaks: { 'vllm:num_requests_waiting': 5, 'vllm:kv_cache_usage_perc': 0.5, 'vllm:num_requests_running': 0 },
      means: {},
      rates: { prefix_cache_hit_rate: 0.92 },
      samples: 4,
    }
    const lines = serverLines([round(0, false), r])!
    expect(lines).toBe(
      '- round 1: server preemptions +37 · prefix-cache hit rate 92.0 % · waiting max 5 · KV-cache usage max 50.0 %',
    )
    expect(roundsSection([cell('t/s', [round(0, false), r])])).toContain(lines)
  })

  it('steady rounds without server counters say so; no steady round says nothing', () => {
    expect(serverLines([round(0, true)])).toBe('- no server counters')
    expect(serverLines([round(0, false)])).toBeUndefined()
  })

  it('a share over 1 shows as 100 %; negative and non-finite figures are not shown', () => {
    const r = round(1, true)
    r.server = {
      deltas: { 'vllm:num_preemptions_total': -3, 'vllm:request_success_total': 4 },
      peaks: {
        'vllm:num_requests_running': -7,
        'vllm:kv_cache_usage_perc': 1.7,
        'vllm:num_requests_waiting': Number.NaN,
      },
      means: {},
      rates: { prefix_cache_hit_rate: 1000 },
      samples: 2,
    }
    expect(serverLines([r])).toBe(
      '- round 1: server requests finished +4 · prefix-cache hit rate 100 % · KV-cache usage max 100 %',
    )
  })
})
