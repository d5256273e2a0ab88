/**
 * The roofline of the real llama.cpp server: the model's bytes come from the headers of the GGUF its launch's `-m`
 * names (the tiny F16 model, about 74 MB of tensors, plus 590 kB of KV cache at this depth), the KV cache bytes from its metadata, and the box's bandwidth
 * from the setting. At 50 GB/s the ceiling is hundreds of tok/s and the CPU build decodes well under it; told the
 * box reads only 0.5 GB/s, the same decode is faster than that memory allows, and the cell is an error naming the
 * figures.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildPlan } from '../../src/config/index.js'
import { hasFigures } from '../../src/core/roofline.js'
import { readModelBytes } from '../../src/host/model-bytes.js'
import { runTarget } from '../../src/target-run/run-target.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { llamaCpp } from './prereq.js'

const llama = llamaCpp()

async function measure(bandwidth: string) {
  const plan = buildPlan(
    {
      version: 1,
      defaults: { rounds: 2, discard: 1, 'ready-timeout': '60s', 'request-timeout': '60s', quality: false, bandwidth },
      scenarios: { s: { 'input-tokens': 32, 'output-tokens': 32, concurrency: 1 } },
      targets: {
        llama: { engine: 'llamacpp', launch: `'${llama.server}' -m '${llama.model}' --port {port} -c 4096 -np 1 -t 1` },
      },
    },
    { configPath: 'bench.yml', resolvedPath: '/dev/null' },
  )
  const dir = await mkdtemp(join(tmpdir(), 'lbg-real-roofline-'))
  const [cell] = await runTarget(plan.targets[0], plan.cells, {
    log: memoryLogger(),
    logDir: join(dir, 'logs'),
    signal: new AbortController().signal,
    seed: 1,
  })
  return cell
}

describe('the roofline of a real llama-server', () => {
  it('reads the model from the GGUF the launch names and holds the decode under the ceiling', async () => {
    const model = await readModelBytes(llama.model)
    const ok = await measure('50GB/s')
    expect(ok.status, ok.error ?? '').toBe('ok')
    const r = ok.roofline
    expect(hasFigures(r), JSON.stringify(r)).toBe(true)
    if (!hasFigures(r)) return
    expect(r.step.weights).toBe(model.weights)
    expect(r.step.kvPerToken).toBe(6 * 8 * (64 + 64) * 2)
    expect(r.step.source).toBe('gguf headers of tiny-llama-f16.gguf')
    expect(r.decodeTps).toBe(ok.metrics?.decode_tps.mean)
    expect(r.share).toBeLessThan(1)

    // 0.5 GB/s over ≈ 74 MB is a ceiling of ≈ 6.7 tok/s: the same server (≈ 100 tok/s on one CPU thread) is faster.
    const fast = await measure('0.5GB/s')
    expect(fast.status).toBe('error')
    expect(fast.error).toMatch(
      /^decode [\d.,]+ tok\/s is faster than memory bandwidth allows: check the measurement \(\d+ % of the ceiling 6\.\d+ tok\/s \(500 MB\/s from setting bandwidth ÷ 7\d\.\d MB per step: weights 7\d\.\d MB from gguf headers of tiny-llama-f16\.gguf, KV [\d.]+ kB at depth 48 × 1\)\)$/,
    )
  })
})
