/**
 * Where a target's roofline figures come from: the settings first, then what the engine says of its box (the
 * simulator), then the GPU the preflight found and the model's files — the target's `model` as a local path, the
 * launch's `-m` file or a serving command's first argument, quoted or not; a hub id leaves the model unknown, said
 * once with the reason.
 */
import { stat } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import type { HostState } from '../../src/core/host.js'
import type { TargetPlan } from '../../src/core/plan.js'
import { readGgufHeader } from '../../src/host/gguf-header.js'
import { kvBytes, launchModelPath, rooflineBox, withRoofline } from '../../src/target-run/roofline-box.js'
import { flatCell } from '../helpers/builders.js'

const GGUF = '/work/shared/engines/llama.cpp/tiny-llama-f16.gguf'
const GB10: HostState = { gpus: [{ name: 'NVIDIA GB10', active: [] }] }
const CPU: HostState = { noGpu: 'nvidia-smi not found' }

function target(over: Partial<TargetPlan> = {}, settings: Partial<TargetPlan['settings']> = {}): TargetPlan {
  return {
    id: 't',
    sourceKey: 't',
    engine: 'llamacpp',
    url: 'http://127.0.0.1:{port}',
    external: false,
    env: {},
    matrix: {},
    engineOptions: {},
    settings: settings as TargetPlan['settings'],
    gate: {},
    scenarios: [],
    ...over,
  }
}

describe('rooflineBox', () => {
  it('takes the GPU the preflight found and the GGUF the launch names, quoted', async () => {
    const box = await rooflineBox(target({ launch: `llama-server -m '${GGUF}' --port {port}` }), GB10, {})
    const header = await readGgufHeader(GGUF)
    expect(box.bandwidth).toEqual({
      value: 273e9,
      source: 'NVIDIA GB10: NVIDIA DGX Spark data sheet',
      measured: { value: 232e9, source: 'a saturating read, antirez/ds4 #773' },
    })
    expect(box.model?.weights).toBe(header.tensorBytes)
    expect(box.model?.weights).toBe((await stat(GGUF)).size - header.dataStart)
    expect(box.model?.source).toBe('gguf headers of tiny-llama-f16.gguf')
  })

  it('reads the model a serving command takes first (vllm serve, trtllm-serve)', async () => {
    const weights = (await readGgufHeader(GGUF)).tensorBytes
    for (const launch of [`vllm serve ${GGUF} --port {port}`, `trtllm-serve '${GGUF}' --port {port}`]) {
      const box = await rooflineBox(target({ engine: 'vllm', launch }), GB10, {})
      expect(box.model?.weights, launch).toBe(weights)
    }
  })

  it('lets the settings win over the GPU, the engine and the files', async () => {
    const info = { server: { roofline: { bandwidth: 1e12, weights: 1e9, source: 'sim profile p' } } }
    const box = await rooflineBox(target({ model: GGUF }, { bandwidth: 100e9, modelBytes: 5e9 }), GB10, info)
    expect(box.bandwidth).toEqual({ value: 100e9, source: 'setting bandwidth' })
    // The KV bytes per token still come from the model's metadata.
    expect(box.model).toEqual({ weights: 5e9, source: 'setting model-bytes', kvPerToken: 6 * 8 * 128 * 2 })
  })

  it("takes the simulator's box over the host's GPU", async () => {
    const info = {
      server: { roofline: { bandwidth: 4 * 273e9, weights: 16.4e9, source: 'sim profile p at time scale 4' } },
    }
    const box = await rooflineBox(target({ engine: 'sim', model: 'Qwen3.8-27B-NVFP4' }), GB10, info)
    expect(box.bandwidth).toEqual({ value: 4 * 273e9, source: 'sim profile p at time scale 4' })
    expect(box.model).toEqual({ weights: 16.4e9, source: 'sim profile p at time scale 4' })
  })

  it('says why a hub id has none, and records it only where the box is known', async () => {
    const hub = target({ model: 'Qwen/Qwen3.6-27B', launch: 'vllm serve Qwen/Qwen3.6-27B --port {port}' })
    const box = await rooflineBox(hub, GB10, {})
    const reason =
      'model "Qwen/Qwen3.6-27B" is not a local path and the launch names no model file: set model-bytes for a roofline'
    expect(box.unavailable).toBe(reason)
    const cell = flatCell('t/chat', { decode: 10 })
    expect(withRoofline(cell, box).roofline).toEqual({ unavailable: reason })
    expect(withRoofline(cell, await rooflineBox(hub, CPU, {})).roofline).toBeUndefined()
  })

  it('names the file a header could not be read from', async () => {
    const box = await rooflineBox(target({ model: '/nonexistent/model.gguf' }), GB10, {})
    expect(box.unavailable).toMatch(
      /^model bytes not read from \/nonexistent\/model\.gguf: .*ENOENT.*; set model-bytes$/,
    )
  })
})

describe('what the launch says', () => {
  it.each([
    ['llama-server -m /m/x.gguf -c 4096', '/m/x.gguf'],
    ['llama-server --model=/m/x.gguf', '/m/x.gguf'],
    ['llama-server --model "/m/x.gguf"', '/m/x.gguf'],
    ['llama-server -m $MODEL', undefined],
    ['llama-server -m "$MODEL"', undefined],
    ['vllm serve /models/dir --port {port}', '/models/dir'],
    ['vllm serve ./qwen --port {port}', '/qwen'],
    ['vllm serve Qwen/Qwen3-8B --port {port}', undefined],
    ['python -m sglang.launch_server --model-path /models/qwen', '/models/qwen'],
    ["trtllm-serve '/m/x.safetensors' --backend pytorch", '/m/x.safetensors'],
  ])('%s names %s', (launch, path) => {
    expect(launchModelPath(launch, '/')).toBe(path)
  })

  it.each([
    ['vllm serve m --kv-cache-dtype fp8_e4m3', 1],
    ['vllm serve m --kv-cache-dtype=fp8', 1],
    ['llama-server -m x.gguf -ctk q8_0 -ctv q8_0', 34 / 32],
    ['llama-server -m x.gguf -ctk q8_0', (34 / 32 + 2) / 2],
    ['vllm serve m', 2],
  ])('%s: %d bytes per KV element', (launch, bytes) => {
    expect(kvBytes(launch)).toBe(bytes)
  })
})
