import { describe, expect, it } from 'vitest'
import { engineLabel, imageTag, runtimeLabel } from '../../src/core/runtime.js'
import type { TargetInfo } from '../../src/core/results.js'

const cell = (engine: string, info: TargetInfo) => ({ engine, info })

describe('runtimeLabel', () => {
  it.each<[string, TargetInfo, string]>([
    [
      'vllm',
      { version: '0.11.0', container: { runtime: 'podman', image: 'docker.io/vllm/vllm-openai:v0.11.0@sha256:abc' } },
      'vllm-openai:v0.11.0',
    ],
    ['vllm', { version: '0.11.0' }, 'vllm 0.11.0'],
    ['llamacpp', { version: 'b6100-1a2b3c' }, 'llamacpp b6100-1a2b3c'],
    ['sglang', { version: 'sglang 0.5.2' }, 'sglang 0.5.2'],
    ['openai', {}, 'openai'],
    // A simulator shows what its profile emulates, never its own version (`sim sim-1`).
    [
      'sim',
      { version: 'sim-1', server: { profile: 'vllm-qwen36-27b-fp8', emulates: 'vLLM nv_vllm 26.03' } },
      'vLLM nv_vllm 26.03 (sim)',
    ],
  ])('%s %j → %s', (engine, info, text) => {
    expect(runtimeLabel(cell(engine, info))).toBe(text)
  })
})

describe('engineLabel', () => {
  it('names the engine a simulator profile emulates, the engine itself otherwise', () => {
    expect(engineLabel(cell('sim', { server: { emulates: 'SGLang 0.5.17 (flashinfer)' } }))).toBe('SGLang (sim)')
    expect(engineLabel(cell('vllm', { version: '0.11.0' }))).toBe('vllm')
  })

  it('imageTag keeps the last path segment and its tag', () => {
    expect(imageTag('localhost/llm-bench-engine:test')).toBe('llm-bench-engine:test')
    expect(imageTag('nvcr.io/nvidia/vllm:26.03-py3')).toBe('vllm:26.03-py3')
  })
})
