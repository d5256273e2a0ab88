/**
 * Per engine, the series of its Prometheus endpoint that explain a change of speed (preemptions, prefix-cache
 * reuse, queueing, KV-cache pressure, spec-decode acceptance); scrape.ts reads them. Names are the exposed
 * ones: the Prometheus client appends `_total` to a counter's name.
 */
import type { ServerSeries } from '../core/server-counters.js'
import { SIM_ENERGY_COUNTER, SIM_POWER_GAUGE } from '../sim/metrics-endpoint.js'

/** vLLM v1 `vllm/v1/metrics/loggers.py` (PrometheusStatLogger); prefix-cache counters count tokens. */
export const VLLM_SERIES: ServerSeries = {
  path: '/metrics',
  counters: [
    'vllm:num_preemptions_total',
    'vllm:prefix_cache_queries_total',
    'vllm:prefix_cache_hits_total',
    'vllm:spec_decode_num_drafts_total',
    'vllm:spec_decode_num_draft_tokens_total',
    'vllm:spec_decode_num_accepted_tokens_total',
    'vllm:request_success_total',
  ],
  gauges: ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc'],
  ratios: {
    prefix_cache_hit_rate: ['vllm:prefix_cache_hits_total', 'vllm:prefix_cache_queries_total'],
    spec_acceptance_rate: ['vllm:spec_decode_num_accepted_tokens_total', 'vllm:spec_decode_num_draft_tokens_total'],
  },
}

/**
 * The simulator (`engine: sim`): vLLM's series, and for a profile with `power-w` the simulated GPU's energy counter
 * (joules in simulated time) and power gauge (watts), which the adapter turns into the round's GPU record.
 */
export const SIM_SERIES: ServerSeries = {
  ...VLLM_SERIES,
  counters: [...VLLM_SERIES.counters, SIM_ENERGY_COUNTER],
  gauges: [...VLLM_SERIES.gauges, SIM_POWER_GAUGE],
  gpu: [SIM_ENERGY_COUNTER, SIM_POWER_GAUGE],
}

/**
 * SGLang `python/sglang/srt/metrics/collector.py` (served with `--enable-metrics`): these are gauges, the hit
 * rate and acceptance length included.
 */
export const SGLANG_SERIES: ServerSeries = {
  path: '/metrics',
  counters: [],
  gauges: [
    'sglang:cache_hit_rate',
    'sglang:num_queue_reqs',
    'sglang:num_running_reqs',
    'sglang:token_usage',
    'sglang:spec_accept_length',
  ],
}

/**
 * llama.cpp `tools/server/server-task.cpp` (`server_task_result_metrics::to_metrics`, served with `--metrics`):
 * `prompt_tokens_total` counts the prompt tokens evaluated and `prompt_tokens_cached_total` those reused from a
 * slot's cache instead; `n_decode_total` counts `llama_decode()` calls, speculative ones excluded; the draft
 * counters count tokens drafted and accepted and the target's verification steps, the same as the summed
 * `timings.draft_n` / `draft_n_accepted` of the requests.
 */
export const LLAMACPP_SERIES: ServerSeries = {
  path: '/metrics',
  counters: [
    'llamacpp:prompt_tokens_total',
    'llamacpp:prompt_tokens_cached_total',
    'llamacpp:tokens_predicted_total',
    'llamacpp:prompt_seconds_total',
    'llamacpp:tokens_predicted_seconds_total',
    'llamacpp:n_decode_total',
    'llamacpp:spec_decode_num_drafts_total',
    'llamacpp:spec_decode_num_draft_tokens_total',
    'llamacpp:spec_decode_num_accepted_tokens_total',
  ],
  gauges: ['llamacpp:requests_processing', 'llamacpp:requests_deferred'],
  ratios: {
    prompt_tokens_per_second: ['llamacpp:prompt_tokens_total', 'llamacpp:prompt_seconds_total'],
    predicted_tokens_per_second: ['llamacpp:tokens_predicted_total', 'llamacpp:tokens_predicted_seconds_total'],
    spec_acceptance_rate: [
      'llamacpp:spec_decode_num_accepted_tokens_total',
      'llamacpp:spec_decode_num_draft_tokens_total',
    ],
  },
}
