/** Result files of other tools, made at any size from the recorded ones, for tests and benchmarks. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const FIXTURES = join(import.meta.dirname, '../fixtures/ingest')

/**
 * `vllm bench serve --save-result --save-detailed` over `requests` requests: the recorded headline figures and
 * one entry per request in `ttfts`, `latencies` (s), `input_lens`, `output_lens` and `errors`, as vLLM's
 * `vllm/benchmarks/serve.py` writes them, all requests successful at the recorded lengths.
 */
export function detailedVllmResult(requests: number): Record<string, unknown> {
  const base = JSON.parse(readFileSync(join(FIXTURES, 'vllm-save-result.json'), 'utf8')) as Record<string, number>
  const input = base.total_input_tokens / base.num_prompts
  const output = base.total_output_tokens / base.num_prompts
  const each = <T>(value: (i: number) => T) => Array.from({ length: requests }, (_, i) => value(i))
  return {
    ...base,
    num_prompts: requests,
    completed: requests,
    ttfts: each((i) => (base.mean_ttft_ms + (i % 7)) / 1000),
    latencies: each((i) => (base.mean_e2el_ms + (i % 11)) / 1000),
    input_lens: each(() => input),
    output_lens: each(() => output),
    errors: each(() => ''),
  }
}
