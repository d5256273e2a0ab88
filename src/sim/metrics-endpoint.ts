/**
 * Server-side counters in Prometheus text under vLLM's metric names, so the vLLM
 * counter-delta logic (spec-decode acceptance) works unchanged against the simulator.
 * The simulated GPU's energy and draw, which vLLM does not serve, go under `sim:` names.
 */
import type { StepResult } from './engine.js'
import { EnergyMeter, type PowerDraw } from './power.js'
import type { Profile } from './profile.js'
import type { EngineNow } from './realtime.js'

/** Joules the simulated GPU drew since the server started (a counter, like NVML's total energy). */
export const SIM_ENERGY_COUNTER = 'sim:gpu_energy_joules_total'
/** The simulated GPU's draw now, in watts (a gauge). */
export const SIM_POWER_GAUGE = 'sim:gpu_power_watts'

export class SimCounters {
  promptTokens = 0
  generationTokens = 0
  requestsOk = 0
  requestsAborted = 0
  steps = 0
  /** Simulated seconds spent in steps: the served speed, read without a wall clock. */
  busySeconds = 0
  drafts = 0
  draftTokens = 0
  accepted = 0
  preemptions = 0
  /** Prompt tokens looked up in the prefix cache, and those it served (vLLM's prefix_cache_queries / hits). */
  prefixQueries = 0
  prefixHits = 0
  /** The simulated GPU's energy, for a profile with `power-w`. */
  readonly energy?: EnergyMeter

  constructor(power?: PowerDraw) {
    if (power) this.energy = new EnergyMeter(power)
  }

  record(step: StepResult): void {
    this.energy?.record(step)
    this.preemptions += step.preemptions ?? 0
    this.steps += 1
    this.busySeconds += (step.end - step.start) / 1000
    this.promptTokens += step.prefillTokens
    for (const e of step.emissions) {
      this.generationTokens += e.tokens
      if (e.done) this.requestsOk += 1
    }
    this.drafts += step.drafts
    this.draftTokens += step.draftTokens
    this.accepted += step.accepted
  }
}

/**
 * Preemptions, and KV-cache usage as vLLM v1 serves it: a fraction of the cache in use, 0 to 1
 * (`vllm/v1/metrics/loggers.py`, `kv_cache_usage`), here the held tokens over the budget. A lone stream
 * larger than the budget (admitted because nothing else runs) reads 1, as a full cache does.
 */
function kvMetrics(lines: string[], base: string, budget: number, c: SimCounters, now: EngineNow): void {
  metric(lines, 'vllm:num_preemptions_total', 'counter', 'Cumulative number of preemption from the engine.', [
    [base, c.preemptions],
  ])
  metric(lines, 'vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', [
    [base, Math.min(1, now.kvTokens / budget)],
  ])
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}

function metric(
  lines: string[],
  name: string,
  type: 'counter' | 'gauge',
  help: string,
  samples: [string, number][],
): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
  for (const [labels, value] of samples)
    lines.push(`${name}{${labels}} ${Number.isInteger(value) ? value.toFixed(1) : value}`)
}

export function renderMetrics(profile: Profile, c: SimCounters, now: EngineNow): string {
  const base = `engine="0",model_name="${escapeLabel(profile.model)}"`
  const lines: string[] = []
  metric(lines, 'vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', [
    [base, now.running],
  ])
  metric(lines, 'vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', [
    [base, now.waiting],
  ])
  metric(lines, 'vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', [[base, c.promptTokens]])
  metric(lines, 'vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', [
    [base, c.generationTokens],
  ])
  metric(lines, 'vllm:request_success_total', 'counter', 'Count of successfully processed requests.', [
    [`${base},finished_reason="length"`, c.requestsOk],
    [`${base},finished_reason="abort"`, c.requestsAborted],
  ])
  metric(lines, 'sim:engine_steps_total', 'counter', 'Engine steps run by the simulator.', [[base, c.steps]])
  metric(lines, 'sim:engine_busy_seconds_total', 'counter', 'Simulated seconds the engine spent in steps.', [
    [base, c.busySeconds],
  ])
  // vLLM v1 counts prefix-cache queries and hits in tokens (vllm/v1/metrics/loggers.py).
  metric(
    lines,
    'vllm:prefix_cache_queries_total',
    'counter',
    'Prefix cache queries, in terms of number of queried tokens.',
    [[base, c.prefixQueries]],
  )
  metric(lines, 'vllm:prefix_cache_hits_total', 'counter', 'Prefix cache hits, in terms of number of cached tokens.', [
    [base, c.prefixHits],
  ])
  // Served only with a KV budget, so a profile without one serves what it always did.
  if (profile.kvTokens !== undefined) kvMetrics(lines, base, profile.kvTokens, c, now)
  if (c.energy) {
    metric(lines, SIM_ENERGY_COUNTER, 'counter', 'Joules the simulated GPU drew, in simulated time.', [
      [base, c.energy.joules(now.at, now.step)],
    ])
    metric(lines, SIM_POWER_GAUGE, 'gauge', 'Watts the simulated GPU draws now.', [
      [base, c.energy.watts(now.at, now.step)],
    ])
  }
  if (profile.speculative) {
    metric(lines, 'vllm:spec_decode_num_drafts_total', 'counter', 'Number of spec decoding drafts.', [[base, c.drafts]])
    metric(lines, 'vllm:spec_decode_num_draft_tokens_total', 'counter', 'Number of draft tokens.', [
      [base, c.draftTokens],
    ])
    metric(lines, 'vllm:spec_decode_num_accepted_tokens_total', 'counter', 'Number of accepted tokens.', [
      [base, c.accepted],
    ])
  }
  return lines.join('\n') + '\n'
}
