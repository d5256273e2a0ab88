/**
 * Model bytes read from the files' headers equal the tensor bytes the files hold: for a safetensors file written
 * here, the file size less the 8-byte length and the JSON header; for the tiny GGUFs llama-server runs in the real
 * tests, the file size less the header rounded up to the alignment, found by a walk of the header written here
 * apart from the reader (ggml-org/ggml docs/gguf.md).
 */
import { mkdtemp, open, readFile, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readGgufHeader } from '../../src/host/gguf-header.js'
import { readModelBytes } from '../../src/host/model-bytes.js'
import { readSafetensorsHeader } from '../../src/host/safetensors-header.js'

const LLAMA_DIR = '/work/shared/engines/llama.cpp'
const GGUFS = ['tiny-llama-f16.gguf', 'tiny-llama-draft-q8_0.gguf'].map((n) => join(LLAMA_DIR, n))

type Tensor = { dtype: string; shape: number[]; bytesPerElement: number }

/** A safetensors file as the format defines it: u64 header length, JSON header (space-padded to 8), the data. */
async function writeSafetensors(path: string, tensors: Record<string, Tensor>): Promise<void> {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } }
  let offset = 0
  for (const [name, t] of Object.entries(tensors)) {
    const bytes = t.shape.reduce((a, b) => a * b, 1) * t.bytesPerElement
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] }
    offset += bytes
  }
  let json = JSON.stringify(header)
  json += ' '.repeat((8 - (json.length % 8)) % 8)
  const length = Buffer.alloc(8)
  length.writeBigUInt64LE(BigInt(json.length))
  await writeFile(path, Buffer.concat([length, Buffer.from(json), Buffer.alloc(offset, 7)]))
}

/** The data section's start of a GGUF: the header walked field by field, rounded up to general.alignment. */
function ggufDataStart(buf: Buffer): number {
  let p = 0
  const u32 = () => ((p += 4), buf.readUInt32LE(p - 4))
  const u64 = () => ((p += 8), Number(buf.readBigUInt64LE(p - 8)))
  const str = () => {
    const n = u64()
    p += n
    return buf.toString('utf8', p - n, p)
  }
  const sizes: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 }
  let alignment = 32
  const skipValue = (type: number, key: string) => {
    if (type === 8) return void str()
    if (type === 9) {
      const item = u32()
      const n = u64()
      for (let i = 0; i < n; i++) skipValue(item, '')
      return
    }
    if (key === 'general.alignment') alignment = buf.readUInt32LE(p)
    p += sizes[type]
  }
  expect(u32()).toBe(0x46554747)
  u32()
  const tensors = u64()
  const kvs = u64()
  for (let i = 0; i < kvs; i++) {
    const key = str()
    skipValue(u32(), key)
  }
  for (let i = 0; i < tensors; i++) {
    str()
    const dims = u32()
    p += 8 * dims + 4 + 8
  }
  return Math.ceil(p / alignment) * alignment
}

describe('safetensors headers', () => {
  it('give the tensor bytes of one file: its size less the length field and the header', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lbg-st-'))
    const file = join(dir, 'model.safetensors')
    await writeSafetensors(file, {
      'model.embed_tokens.weight': { dtype: 'BF16', shape: [320, 64], bytesPerElement: 2 },
      'model.layers.0.mlp.down_proj.weight': { dtype: 'U8', shape: [64, 96], bytesPerElement: 1 },
      'model.layers.0.mlp.down_proj.weight_scale': { dtype: 'F8_E4M3', shape: [64, 12], bytesPerElement: 1 },
      'model.norm.weight': { dtype: 'F32', shape: [64], bytesPerElement: 4 },
    })
    const size = (await stat(file)).size
    const headerLength = Number((await readFile(file)).readBigUInt64LE(0))
    const summary = await readSafetensorsHeader(file)
    expect(summary.tensors).toBe(4)
    expect(summary.tensorBytes).toBe(size - 8 - headerLength)
    expect((await readModelBytes(file)).weights).toBe(size - 8 - headerLength)
  })

  it('add up the shards model.safetensors.index.json lists, with the KV bytes per token of config.json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lbg-st-'))
    const shards = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']
    await writeSafetensors(join(dir, shards[0]), { a: { dtype: 'BF16', shape: [128, 64], bytesPerElement: 2 } })
    await writeSafetensors(join(dir, shards[1]), {
      'model.layers.0.mlp.experts.0.up_proj.weight': { dtype: 'BF16', shape: [32, 64], bytesPerElement: 2 },
      b: { dtype: 'F32', shape: [10], bytesPerElement: 4 },
    })
    // A stray file the index does not list is not part of the model.
    await writeSafetensors(join(dir, 'consolidated.safetensors'), {
      c: { dtype: 'F32', shape: [99], bytesPerElement: 4 },
    })
    await writeFile(
      join(dir, 'model.safetensors.index.json'),
      JSON.stringify({
        weight_map: { a: shards[0], b: shards[1], 'model.layers.0.mlp.experts.0.up_proj.weight': shards[1] },
      }),
    )
    const config = {
      num_hidden_layers: 64,
      num_attention_heads: 24,
      num_key_value_heads: 4,
      head_dim: 256,
      hidden_size: 5120,
      full_attention_interval: 4,
      num_experts: 8,
      num_experts_per_tok: 2,
    }
    await writeFile(join(dir, 'config.json'), JSON.stringify(config))
    let expected = 0
    for (const shard of shards) {
      const buf = await readFile(join(dir, shard))
      expected += buf.length - 8 - Number(buf.readBigUInt64LE(0))
    }
    const model = await readModelBytes(dir, 1)
    expect(model.weights).toBe(expected)
    // 16 of 64 layers keep a KV cache: 16 × 4 heads × 256 × (K and V) × 1 byte.
    expect(model.kvPerToken).toBe(16 * 4 * 256 * 2)
    expect(model.experts).toEqual({ bytes: 32 * 64 * 2, count: 8, used: 2 })
    expect(model.source).toBe('safetensors headers of 2 safetensors files')
  })

  it('count as unread what a decode step does not read: untied embeddings, a vision tower, an MTP head', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lbg-st-'))
    const bf16 = (shape: number[]): Tensor => ({ dtype: 'BF16', shape, bytesPerElement: 2 })
    const untied = join(dir, 'untied.safetensors')
    await writeSafetensors(untied, {
      'model.language_model.embed_tokens.weight': bf16([320, 64]),
      'lm_head.weight': bf16([320, 64]),
      'model.visual.blocks.0.attn.qkv.weight': bf16([64, 96]),
      'mtp.layers.0.mlp.up_proj.weight': bf16([64, 32]),
      'model.language_model.layers.0.mlp.up_proj.weight': bf16([64, 128]),
    })
    const model = await readModelBytes(untied)
    expect(model.unread).toBe((320 * 64 + 64 * 96 + 64 * 32) * 2)
    // Tied: the embeddings are the lm_head, read every step.
    const tied = join(dir, 'tied.safetensors')
    await writeSafetensors(tied, { 'model.embed_tokens.weight': bf16([320, 64]), 'model.norm.weight': bf16([64]) })
    expect((await readModelBytes(tied)).unread).toBeUndefined()
  })

  it('refuse a header that does not fit the file, naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lbg-st-'))
    const file = join(dir, 'bad.safetensors')
    const head = Buffer.alloc(16)
    head.writeBigUInt64LE(1000n)
    await writeFile(file, head)
    await expect(readSafetensorsHeader(file)).rejects.toThrow(`${file}: a header of 1000 bytes does not fit`)
  })
})

describe('GGUF headers', () => {
  it.each(GGUFS)('give the tensor bytes of %s: its size less the aligned header', async (file) => {
    const handle = await open(file, 'r')
    const head = Buffer.alloc(8 * 1024 * 1024)
    await handle.read(head, 0, head.length, 0)
    await handle.close()
    const dataStart = ggufDataStart(head)
    const size = (await stat(file)).size
    const summary = await readGgufHeader(file)
    expect(summary.dataStart).toBe(dataStart)
    expect(summary.tensorBytes).toBe(size - dataStart)
    expect((await readModelBytes(file)).weights).toBe(size - dataStart)
  })

  it('read the KV cache bytes per token from the metadata: 6 layers × 8 heads × (64 + 64) × 2 bytes', async () => {
    const model = await readModelBytes(GGUFS[0])
    expect(model.kvPerToken).toBe(6 * 8 * (64 + 64) * 2)
    expect(model.experts).toBeUndefined()
  })

  it('refuse a file that is not GGUF, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lbg-gguf-'))
    const file = join(dir, 'x.gguf')
    await writeFile(file, Buffer.from('not a gguf file at all, just text'))
    await expect(readGgufHeader(file)).rejects.toThrow(`${file}: not a GGUF file`)
  })
})
