import { describe, expect, it } from 'vitest'
import { sumByName, VLLM_DRAFT_COUNTERS, vllmSpecDecode } from '../../src/engines/prometheus.js'

const TEXT = `# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="Qwen/Qwen3-8B"} 120.0
vllm:generation_tokens_total{engine="1",model_name="Qwen/Qwen3-8B"} 30
vllm:request_success_total{finished_reason="length",model_name="a \\"quoted\\", {braced} name"} 4.0 1712000000000
vllm:gpu_cache_usage_perc 0.25
vllm:e2e_request_latency_seconds_bucket{le="+Inf"} 7
not a metric line at all
vllm:broken{label=unquoted} 3
vllm:nan NaN
`

describe('sumByName', () => {
  it('reads values after labels (escaped quotes, commas and braces inside values), sums label sets and skips the rest', () => {
    expect(sumByName(TEXT)).toEqual({
      'vllm:generation_tokens_total': 150,
      'vllm:request_success_total': 4,
      'vllm:gpu_cache_usage_perc': 0.25,
      'vllm:e2e_request_latency_seconds_bucket': 7,
    })
    expect(sumByName(TEXT, ['vllm:gpu_cache_usage_perc'])).toEqual({ 'vllm:gpu_cache_usage_perc': 0.25 })
  })
})

describe('vllmSpecDecode (counter deltas)', () => {
  const c = (drafts: number, draftTokens: number, accepted: number) => ({
    [VLLM_DRAFT_COUNTERS.drafts]: drafts,
    [VLLM_DRAFT_COUNTERS.draftTokens]: draftTokens,
    [VLLM_DRAFT_COUNTERS.accepted]: accepted,
  })

  it.each([
    { name: 'fresh server', before: undefined, after: c(100, 300, 150), rate: 0.5, length: 2.5 },
    { name: 'window of a busy server', before: c(1000, 3000, 900), after: c(1100, 3300, 1140), rate: 0.8, length: 3.4 },
  ])('$name: rate = Δaccepted/Δdraft_tokens, length = 1 + Δaccepted/Δdrafts', ({ before, after, rate, length }) => {
    const s = vllmSpecDecode(before, after)
    expect(s?.acceptanceRate).toBeCloseTo(rate, 10)
    expect(s?.acceptanceLength).toBeCloseTo(length, 10)
  })

  it.each([
    { name: 'no counters after', before: undefined, after: undefined },
    { name: 'server without spec decoding', before: {}, after: { 'vllm:generation_tokens_total': 5 } },
    { name: 'nothing drafted in the window', before: c(10, 30, 5), after: c(10, 30, 5) },
  ])('$name → undefined', ({ before, after }) => {
    expect(vllmSpecDecode(before, after)).toBeUndefined()
  })
})
