/** The environment fingerprint and how it differs from the baseline's. */
import { mkdtemp, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Fingerprint } from '../../src/core/host.js'
import { fingerprint } from '../../src/host/index.js'
import { fingerprintChanges } from '../../src/compare/index.js'

describe('fingerprint', () => {
  it('driver and CUDA from the host, engine version, container image, and a local model file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lbg-fp-'))
    const model = join(dir, 'm.gguf')
    await writeFile(model, Buffer.alloc(2048))
    await utimes(model, new Date('2026-01-02T03:04:05Z'), new Date('2026-01-02T03:04:05Z'))
    const f = await fingerprint({
      host: { gpus: [{ driver: '580.95', active: [] }], cuda: '13.0' },
      engineVersion: '0.11.0',
      container: { image: 'vllm/vllm-openai:v0.11.0', digest: 'sha256:abc' },
      model,
    })
    expect(f).toEqual({
      driver: '580.95',
      cuda: '13.0',
      engine: '0.11.0',
      image: 'vllm/vllm-openai:v0.11.0',
      digest: 'sha256:abc',
      model: { bytes: 2048, mtime: '2026-01-02T03:04:05.000Z' },
    })
  })

  it('a model given as a hub name has no file', async () => {
    expect(await fingerprint({ host: {}, model: 'Qwen/Qwen3-0.6B' })).toEqual({})
  })
})

describe('fingerprintChanges', () => {
  const base: Fingerprint = {
    driver: '580.95',
    cuda: '13.0',
    engine: '0.11.0',
    digest: 'sha256:aaa',
    model: { bytes: 100, mtime: 't1' },
  }
  it.each<[string, Fingerprint, string[]]>([
    ['the same', { ...base }, []],
    ['a new driver', { ...base, driver: '590.10' }, ['driver 580.95 → 590.10']],
    [
      'engine and image digest',
      { ...base, engine: '0.12.0', digest: 'sha256:bbb' },
      ['engine 0.11.0 → 0.12.0', 'image digest sha256:aaa → sha256:bbb'],
    ],
    ['a field one side lacks is no change', { engine: '0.11.0' }, []],
    ['a model file of another size', { ...base, model: { bytes: 2048, mtime: 't2' } }, ['model file 100B → 2KiB']],
    ['a model file touched', { ...base, model: { bytes: 100, mtime: 't2' } }, ['model file modified t1 → t2']],
  ])('%s', (_, current, expected) => {
    expect(fingerprintChanges(base, current)).toEqual(expected)
  })

  it('no baseline fingerprint, no changes', () => {
    expect(fingerprintChanges(undefined, base)).toEqual([])
  })
})
