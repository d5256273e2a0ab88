import { describe, expect, it } from 'vitest'
import { VLLM_DRAFT_COUNTERS, sumByName, vllmSpecDecode } from '../../src/engines/prometheus.js'

// The shape of a vLLM /metrics scrape: HELP/TYPE comments, _created samples, two engine
// label sets, histogram buckets with +Inf, a timestamp, an escaped label value, NaN.
const SCRAPE = `# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="qwen"} 120.0
vllm:spec_decode_num_drafts_total{engine="1",model_name="qwen"} 30.0
vllm:spec_decode_num_drafts_created{engine="0",model_name="qwen"} 1.7e+09
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="qwen"} 600 1712345678000
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="a \\"quoted\\", name\\\\x"} 450
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="qwen"} 7
vllm:gpu_cache_usage_perc NaN
vllm:broken{engine="0" 3
plain_metric 2.5

`

describe('sumByName', () => {
  it('sums a counter over its label sets and leaves absent names out', () => {
    const counters = sumByName(SCRAPE, [...Object.values(VLLM_DRAFT_COUNTERS), 'vllm:not_exported_total'])
    expect(counters).toEqual({
      [VLLM_DRAFT_COUNTERS.drafts]: 150,
      [VLLM_DRAFT_COUNTERS.draftTokens]: 600,
      [VLLM_DRAFT_COUNTERS.accepted]: 450,
    })
  })

  it('without names keeps every metric: values after labels with escapes and before timestamps; comments, NaN and malformed lines skipped', () => {
    expect(sumByName(SCRAPE)).toEqual({
      'vllm:spec_decode_num_drafts_total': 150,
      'vllm:spec_decode_num_drafts_created': 1.7e9,
      'vllm:spec_decode_num_draft_tokens_total': 600,
      'vllm:spec_decode_num_accepted_tokens_total': 450,
      'vllm:e2e_request_latency_seconds_bucket': 7,
      plain_metric: 2.5,
    })
  })
})

describe('sumByName on label values that look like syntax', () => {
  // Escaped quotes, commas and braces inside a label value must not end the label set early.
  const TEXT = [
    'vllm:request_success_total{finished_reason="length",model_name="a \\"quoted\\", {braced} name"} 4.0 1712000000000',
    'vllm:broken{label=unquoted} 3',
    '',
  ].join('\n')

  it('reads the value after the whole label set and skips unquoted labels', () => {
    expect(sumByName(TEXT)).toEqual({ 'vllm:request_success_total': 4 })
  })
})

describe('vllmSpecDecode', () => {
  const c = (drafts: number, draftTokens: number, accepted: number) => ({
    [VLLM_DRAFT_COUNTERS.drafts]: drafts,
    [VLLM_DRAFT_COUNTERS.draftTokens]: draftTokens,
    [VLLM_DRAFT_COUNTERS.accepted]: accepted,
  })

  it.each([
    // before, after → rate = Δaccepted/Δdraft_tokens, length = 1 + Δaccepted/Δdrafts
    [c(10, 50, 30), c(110, 550, 330), 300 / 500, 1 + 300 / 100],
    [c(0, 0, 0), c(4, 12, 12), 1, 4],
    [c(5, 15, 3), c(7, 21, 3), 0, 1],
    // A fresh server: no counters before the window.
    [undefined, c(100, 300, 150), 0.5, 2.5],
  ])('%o → %o gives rate %d and length %d', (before, after, rate, length) => {
    expect(vllmSpecDecode(before, after)).toMatchObject({
      acceptanceRate: rate,
      acceptanceLength: length,
      source: expect.stringContaining('vllm'),
    })
  })

  it.each([
    ['no counters after', c(1, 1, 1), undefined],
    ['nothing drafted in the window', c(10, 50, 30), c(10, 50, 30)],
    ['spec decoding not configured', {}, {}],
  ])('is undefined when %s', (_why, before, after) => {
    expect(vllmSpecDecode(before, after)).toBeUndefined()
  })
})

describe('sumByName: what is not a finite number is missing, never a value', () => {
  it.each([
    ['+Inf', 'vllm:kv_cache_usage_perc +Inf'],
    ['Inf', 'vllm:kv_cache_usage_perc Inf'],
    ['-Inf', 'vllm:kv_cache_usage_perc -Inf'],
    ['NaN', 'vllm:kv_cache_usage_perc NaN'],
    ['a literal past the largest double', 'vllm:kv_cache_usage_perc 1e400'],
    ['garbage', 'vllm:kv_cache_usage_perc fast'],
  ])('a sample of %s', (_, line) => {
    expect(sumByName(`${line}\nvllm:num_requests_running 2\n`)).toEqual({ 'vllm:num_requests_running': 2 })
  })

  it('a series whose sum over its label sets overflows is missing, whatever label sets follow', () => {
    const text = [
      'vllm:num_requests_waiting{engine="0"} 1.5e308',
      'vllm:num_requests_waiting{engine="1"} 1.5e308',
      'vllm:num_requests_waiting{engine="2"} -1.5e308',
      'vllm:num_requests_running{engine="0"} 1.5e308',
      'vllm:num_requests_running{engine="1"} 1',
    ].join('\n')
    expect(sumByName(text)).toEqual({ 'vllm:num_requests_running': 1.5e308 + 1 })
  })

  it('one +Inf label set leaves the others summed', () => {
    const text = 'vllm:num_requests_waiting{engine="0"} +Inf\nvllm:num_requests_waiting{engine="1"} 3\n'
    expect(sumByName(text)).toEqual({ 'vllm:num_requests_waiting': 3 })
  })
})

describe('vllmSpecDecode on counters that overflow or move backwards', () => {
  const names = VLLM_DRAFT_COUNTERS
  it('a denormal count of drafts gives no figure rather than an infinite one; a share is at most 1', () => {
    const before = { [names.drafts]: 0, [names.draftTokens]: 0, [names.accepted]: 0 }
    expect(vllmSpecDecode(before, { [names.drafts]: 5e-324, [names.draftTokens]: 5e-324, [names.accepted]: 10 })).toBe(
      undefined,
    )
    expect(
      vllmSpecDecode(before, { [names.drafts]: 10, [names.draftTokens]: 40, [names.accepted]: 80 })?.acceptanceRate,
    ).toBe(1)
    expect(
      vllmSpecDecode(
        { ...before, [names.accepted]: 50 },
        { [names.drafts]: 10, [names.draftTokens]: 40, [names.accepted]: 5 },
      ),
    ).toBe(undefined)
  })
})
