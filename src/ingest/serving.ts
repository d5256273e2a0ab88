/**
 * What `vllm bench serve` and SGLang's `bench_serving` share: per-metric keys `mean_<m>_ms`, `median_<m>_ms`,
 * `std_<m>_ms` and `p<N>_<m>_ms` (`p99`, `p99.9`; vLLM writes the percentiles `--metric-percentiles` asks for,
 * 99 by default), computed with NumPy as ours are, over the successful requests; TPOT is (e2e − TTFT) /
 * (output tokens − 1) as ours; ITL is the gaps between streamed chunks as ours. Throughputs divide by the whole
 * run's wall time. Sources: vllm-project/vllm `vllm/benchmarks/serve.py` (`calculate_metrics`,
 * `process_one_metric`), sgl-project/sglang `python/sglang/bench_serving.py` (`calculate_metrics`, the result dict).
 */
import type { Stats } from '../core/measurements.js'
import type { ToolRecord } from './field-reader.js'

/** Statistics of one metric from its keys; `name` is the tool's metric name (`ttft`, `e2el`, `e2e_latency`). */
export function servingStats(record: ToolRecord, name: string): Partial<Stats> {
  return {
    mean: record.measured(`mean_${name}_ms`),
    p50: record.measured(`median_${name}_ms`),
    p90: record.measured(`p90_${name}_ms`),
    p99: record.measured(`p99_${name}_ms`),
    std: record.opt(`std_${name}_ms`),
  }
}

/** Decode rate from TPOT: the mean is 1000 / mean TPOT, the median 1000 / median TPOT (a rate falls as TPOT rises). */
export function decodeFromTpot(tpot: Partial<Stats>): Partial<Stats> {
  const rate = (ms: number | undefined) => (ms !== undefined && ms > 0 ? 1000 / ms : undefined)
  return { mean: rate(tpot.mean), p50: rate(tpot.p50), min: rate(tpot.max), max: rate(tpot.min) }
}

/**
 * `in512-out128-c8` (`-r4` for an open-loop rate): the scenario id of a requested workload. A concurrency the
 * request left unbounded (null) is left out.
 */
export function scenarioId(workload: {
  inputTokens: number
  outputTokens: number
  concurrency: number | null
  rate: number | null
}): string {
  const { inputTokens, outputTokens, concurrency, rate } = workload
  return `in${inputTokens}-out${outputTokens}${concurrency === null ? '' : `-c${concurrency}`}${rate === null ? '' : `-r${rate}`}`
}

/** A request rate as the tools write it: a number, or `"inf"` / `Infinity` for everything at once (null). */
export function requestRate(record: ToolRecord, key = 'request_rate'): number | null {
  const value = record.raw(key)
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (value === undefined || value === null || value === 'inf' || value === 'Infinity') return null
  return record.fail(`\`${key}\`: expected a number or "inf", got ${JSON.stringify(value)}`)
}

/** Last path part of a model id or file: `Qwen/Qwen3-8B` → `Qwen3-8B`. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path
}

/** Mean tokens per successful request; 0 without a completed request. */
export function perRequest(total: number | undefined, completed: number): number {
  return total !== undefined && completed > 0 ? total / completed : 0
}
