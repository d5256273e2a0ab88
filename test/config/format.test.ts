// What `llm-bench-gate validate` prints: every value resolved, `{port}` left for the launcher.
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildPlan, formatPlan, loadPlan } from '../../src/config/index.js'
import { TEST_ENGINES } from './engines.js'

describe('formatPlan', () => {
  it('prints the SPEC example target by target with launch, url, settings, gate and cells', async () => {
    const path = fileURLToPath(new URL('fixtures/spec-example.yml', import.meta.url))
    const lines = formatPlan(await loadPlan(path)).split('\n')
    expect(lines.slice(0, 3)).toEqual([`Plan for ${path}`, '4 targets, 7 cells; hardware dgx-spark', ''])
    const block = lines.slice(3, 14)
    expect(block).toEqual([
      'qwen38-27b-fp8-vllm (from qwen38-27b-{quant}-vllm, quant=fp8)',
      '  engine  vllm, quant fp8, model /models/Qwen3.8-27B-fp8',
      '  launch  ./scripts/run_qwen38_vllm.sh --model /models/Qwen3.8-27B-fp8 --port {port}',
      '  url     http://127.0.0.1:{port}',
      '  env     CUDA_HOME=/usr/local/cuda-13.0',
      '  runs    3 rounds (1 discarded), confirm 1, noise-floor 1.5%, api completions, ready-timeout 20m, request-timeout 10m, memory-floor 4GiB, max-error-share 10%',
      '  probe   40 questions (32 tokens each) + 12 greedy prompts, 64 in flight',
      '  gate    decode mean worse by > 5%; ttft mean worse by > 10% and 50ms; failed-requests above 1%; quality accuracy drop > 5 points, agreement < 0.8, degenerate fail',
      '  cells',
      '    qwen38-27b-fp8-vllm/chat-1k    1024 in → 128 out, concurrency 8, 8 requests/round',
      '    qwen38-27b-fp8-vllm/long-100k  99912 in → 256 out, concurrency 1, 1 request/round',
    ])
    expect(lines).toContain('  url     http://127.0.0.1:30000 (already running: nothing is launched or stopped)')
    expect(lines.filter((l) => l.startsWith('  launch'))).toHaveLength(3)
  })

  it('shows engine options, a default launch, open-loop workloads, the probe and switched-off gates', () => {
    const plan = buildPlan(
      {
        version: 1,
        gate: {
          'output-throughput': { 'max-regression': '8%', 'min-delta': 5 },
          quality: { 'max-accuracy-drop': 10, degenerate: 'warn' },
        },
        scenarios: { burst: { 'input-tokens': 512, 'output-tokens': 64, rate: 4, requests: 16 } },
        targets: {
          sim: {
            engine: 'sim',
            profile: 'spark',
            seed: 3,
            port: 8600,
            'allow-gpu-processes': ['ollama', 'python*'],
            'request-body': { chat_template_kwargs: { enable_thinking: false } },
            quality: { questions: 8, prompts: 2, 'max-tokens': 16, api: 'chat', concurrency: 4 },
          },
          later: {
            engine: 'openai',
            url: 'http://10.0.0.2:8000',
            quality: false,
            gate: { 'output-throughput': false, 'failed-requests': false, quality: false },
          },
        },
      },
      { configPath: '.github/llm-bench.yml', resolvedPath: '/repo/.github/llm-bench.yml', engines: TEST_ENGINES },
    )
    const text = formatPlan(plan)
    expect(text).toContain('Plan for .github/llm-bench.yml (/repo/.github/llm-bench.yml)\n2 targets, 2 cells\n')
    expect(text).toContain(
      '  launch  node sim.js --port 8600 --profile spark\n  url     http://127.0.0.1:8600\n  port    8600\n  options profile=spark seed=3\n',
    )
    expect(text).toContain('  probe   8 questions (16 tokens each) + 2 greedy prompts, 4 in flight, api chat\n')
    expect(text).toContain(
      ', max-error-share 10%, allow-gpu-processes ollama python*, request-body {"chat_template_kwargs":{"enable_thinking":false}}\n  probe   8 questions',
    )
    expect(text).toContain(
      '  gate    output-throughput worse by > 8% and 5 tok/s; failed-requests above 1%; quality accuracy drop > 10 points, agreement < 0.8, degenerate warn\n',
    )
    expect(text).toContain('  probe   off (quality: false)\n')
    expect(text).toContain('    sim/burst  512 in → 64 out, 4 req/s (Poisson), 16 requests/round\n')
    expect(text).toContain('  gate    none (nothing can regress)\n')
  })

  it("prints an slo's effect on its cell, and goodput's limit only for a target with such a cell", () => {
    const plan = buildPlan(
      {
        version: 1,
        scenarios: {
          chat: { 'input-tokens': 64, 'output-tokens': 16, concurrency: 4, slo: { ttft: '2s', tpot: '80ms' } },
          batch: { 'input-tokens': 64, 'output-tokens': 16, slo: { e2e: '1m30s' } },
          plain: { 'input-tokens': 64, 'output-tokens': 16 },
        },
        targets: {
          sim: { engine: 'sim', profile: 'spark', port: 8600, gate: { goodput: { 'max-drop': 2.5 } } },
          other: { engine: 'openai', url: 'http://10.0.0.2:8000', scenarios: ['plain'] },
        },
      },
      { configPath: 'm.yml', resolvedPath: '/repo/m.yml', engines: TEST_ENGINES },
    )
    const text = formatPlan(plan)
    expect(text).toContain(
      '    sim/chat   64 in → 16 out, concurrency 4, 4 requests/round; goodput: requests that succeed with TTFT ≤ 2s, TPOT ≤ 80ms\n',
    )
    expect(text).toContain(
      '    sim/batch  64 in → 16 out, concurrency 1, 1 request/round; goodput: requests that succeed with E2E ≤ 1m30s\n',
    )
    expect(text).toContain('    sim/plain  64 in → 16 out, concurrency 1, 1 request/round\n')
    expect(text).toContain('; failed-requests above 1%; goodput down by > 2.5 points (cells with an slo); quality')
    // The other target measures no goodput, so its gate does not list it.
    expect(text.split('\nother')[1]).toMatch(
      / {2}gate {4}decode mean worse by > 5%; [^\n]*failed-requests above 1%; quality/,
    )
  })
})
