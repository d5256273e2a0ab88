#!/usr/bin/env node
/**
 * bench-vllm: a tiny stand-in for `vllm bench serve --save-result`, run as an `engine: external` target's `run`
 * command (plain JS, no build step). It streams --requests completions, --concurrency at a time, to --url and
 * writes one vLLM-format result object to --out: the keys and NumPy statistics of vllm-project/vllm
 * `vllm/benchmarks/serve.py` (mean, median, std, p99 of ttft, tpot, itl, e2el in ms; throughputs over the run).
 *
 *   node test/helpers/bench-vllm.mjs --url U --out F [--input-tokens N] [--output-tokens M] [--concurrency C] [--requests R]
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    out: { type: 'string' },
    'input-tokens': { type: 'string', default: '8' },
    'output-tokens': { type: 'string', default: '16' },
    concurrency: { type: 'string', default: '1' },
    requests: { type: 'string', default: '4' },
  },
})
const input = Number(values['input-tokens'])
const output = Number(values['output-tokens'])
const concurrency = Number(values.concurrency)
const requests = Number(values.requests)

async function one(index) {
  const sent = performance.now()
  const body = {
    model: 'm',
    prompt: `${index} ${'word '.repeat(input - 1)}`.trim(),
    max_tokens: output,
    stream: true,
    stream_options: { include_usage: true },
  }
  const response = await fetch(`${values.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) return { ok: false }
  const times = []
  let tokens = 0
  let prompt = input
  let buffer = ''
  for await (const chunk of response.body) {
    buffer += Buffer.from(chunk).toString('utf8')
    let end
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end).replace(/^data: /, '')
      buffer = buffer.slice(end + 2)
      if (event === '[DONE]') continue
      const parsed = JSON.parse(event)
      if (parsed.usage) ({ completion_tokens: tokens, prompt_tokens: prompt } = parsed.usage)
      if (parsed.choices?.[0]?.text) times.push(performance.now())
    }
  }
  const ttft = times[0] - sent
  const e2e = times[times.length - 1] - sent
  return {
    ok: true,
    ttft,
    e2e,
    itl: times.slice(1).map((t, i) => t - times[i]),
    tokens: tokens || times.length,
    prompt,
  }
}

const results = []
const started = performance.now()
let next = 0
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < requests) results.push(await one(next++))
  }),
)
const duration = (performance.now() - started) / 1000

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  const rank = (p / 100) * (s.length - 1)
  const lo = Math.floor(rank)
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (rank - lo)
}
const std = (xs) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)))
const ok = results.filter((r) => r.ok)
const result = {
  date: '20261201-000000',
  backend: 'openai',
  label: null,
  model_id: 'm',
  num_prompts: requests,
  request_rate: 'inf',
  burstiness: 1.0,
  max_concurrency: concurrency,
  duration,
  completed: ok.length,
  failed: results.length - ok.length,
  total_input_tokens: ok.reduce((n, r) => n + r.prompt, 0),
  total_output_tokens: ok.reduce((n, r) => n + r.tokens, 0),
  request_throughput: ok.length / duration,
  request_goodput: null,
  output_throughput: ok.reduce((n, r) => n + r.tokens, 0) / duration,
  total_token_throughput: ok.reduce((n, r) => n + r.tokens + r.prompt, 0) / duration,
}
const metric = (name, xs) =>
  Object.assign(result, {
    [`mean_${name}_ms`]: mean(xs),
    [`median_${name}_ms`]: percentile(xs, 50),
    [`std_${name}_ms`]: std(xs),
    [`p99_${name}_ms`]: percentile(xs, 99),
  })
metric(
  'ttft',
  ok.map((r) => r.ttft),
)
metric(
  'tpot',
  ok.filter((r) => r.tokens > 1).map((r) => (r.e2e - r.ttft) / (r.tokens - 1)),
)
metric(
  'itl',
  ok.flatMap((r) => r.itl),
)
metric(
  'e2el',
  ok.map((r) => r.e2e),
)
writeFileSync(values.out, JSON.stringify(result))
