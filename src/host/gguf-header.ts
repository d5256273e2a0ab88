/**
 * A GGUF file's tensor table, read from its header alone (ggml-org/ggml `docs/gguf.md`): the magic `GGUF`, a
 * uint32 version (2 or 3: 64-bit counts), uint64 tensor and metadata counts, the metadata key/value pairs, then per
 * tensor its name, uint32 dimension count, uint64 dimensions, uint32 ggml type and uint64 offset into the data
 * section, which starts at the header's end rounded up to `general.alignment` (default 32). Little-endian. The
 * tensor data is never read; the header is read in chunks and bounded, so a hostile file cannot make it grow.
 */
import { open, type FileHandle } from 'node:fs/promises'
import { ggmlTensorBytes } from './ggml-types.js'
import { noRoles, tensorRole, type TensorRole } from './model-shape.js'

/** Past this a header is not a model's: tokenizers of 250k tokens take a few MiB. */
export const MAX_GGUF_HEADER_BYTES = 256 * 1024 * 1024
const MAX_TENSORS = 1_000_000
const MAX_STRING_BYTES = 16 * 1024 * 1024
/** Metadata strings and integer lists kept for the model's shape (`general.architecture`, per-layer KV heads). */
const KEPT_STRING_BYTES = 256
const KEPT_ARRAY_ITEMS = 4096
const CHUNK = 1024 * 1024
const DEFAULT_ALIGNMENT = 32
/** Bytes of each fixed-size metadata value type (gguf.md, `gguf_metadata_value_type`); 8 is a string, 9 an array. */
const VALUE_BYTES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 }

export type GgufValue = number | string | number[]

export interface GgufSummary {
  version: number
  tensors: number
  /** Σ of every tensor's bytes as its type and shape give them (padding between tensors not counted). */
  tensorBytes: number
  /** The same bytes by what a decode step does with each tensor (model-shape.ts). */
  roles: Record<TensorRole, number>
  /** Where the data section starts. */
  dataStart: number
  /** Numbers, short strings and short integer lists of the metadata; the rest is skipped. */
  metadata: Map<string, GgufValue>
}

/** Reads forward through a file a chunk at a time, never past `MAX_GGUF_HEADER_BYTES`. */
class Cursor {
  pos = 0
  private buf = Buffer.alloc(0)
  private start = 0
  constructor(
    private readonly file: FileHandle,
    private readonly size: number,
    private readonly where: string,
  ) {}

  private async need(n: number): Promise<Buffer> {
    const end = this.pos + n
    if (end > this.size) throw new Error(`${this.where}: the header runs past the end of the file`)
    if (end > MAX_GGUF_HEADER_BYTES) throw new Error(`${this.where}: the header is larger than 256 MiB`)
    if (this.pos < this.start || end > this.start + this.buf.length) {
      const length = Math.min(Math.max(n, CHUNK), this.size - this.pos)
      const chunk = Buffer.alloc(length)
      const { bytesRead } = await this.file.read(chunk, 0, length, this.pos)
      if (bytesRead < n) throw new Error(`${this.where}: the header runs past the end of the file`)
      this.buf = chunk.subarray(0, bytesRead)
      this.start = this.pos
    }
    const at = this.pos - this.start
    this.pos = end
    return this.buf.subarray(at, at + n)
  }

  skip(n: number): void {
    if (this.pos + n > Math.min(this.size, MAX_GGUF_HEADER_BYTES))
      throw new Error(`${this.where}: the header runs past the end of the file`)
    this.pos += n
  }

  async u32(): Promise<number> {
    return (await this.need(4)).readUInt32LE(0)
  }

  async u64(what: string): Promise<number> {
    const value = (await this.need(8)).readBigUInt64LE(0)
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${this.where}: ${what} ${value} is out of range`)
    return Number(value)
  }

  async string(keep: boolean): Promise<string | undefined> {
    const length = await this.u64('a string length')
    if (length > MAX_STRING_BYTES) throw new Error(`${this.where}: a string of ${length} bytes in the header`)
    if (!keep) return void this.skip(length)
    return (await this.need(length)).toString('utf8')
  }

  async scalar(type: number): Promise<number> {
    const b = await this.need(VALUE_BYTES[type])
    const read: Record<number, () => number> = {
      0: () => b.readUInt8(0),
      1: () => b.readInt8(0),
      2: () => b.readUInt16LE(0),
      3: () => b.readInt16LE(0),
      4: () => b.readUInt32LE(0),
      5: () => b.readInt32LE(0),
      6: () => b.readFloatLE(0),
      7: () => b.readUInt8(0),
      10: () => Number(b.readBigUInt64LE(0)),
      11: () => Number(b.readBigInt64LE(0)),
      12: () => b.readDoubleLE(0),
    }
    return read[type]()
  }
}

/** One metadata value: kept when it is a number, a short string or a short list of numbers; skipped otherwise. */
async function value(c: Cursor, type: number, where: string): Promise<GgufValue | undefined> {
  if (type in VALUE_BYTES) return c.scalar(type)
  if (type === 8) {
    const text = await c.string(true)
    return text !== undefined && text.length <= KEPT_STRING_BYTES ? text : undefined
  }
  if (type !== 9) throw new Error(`${where}: unknown metadata value type ${type}`)
  const itemType = await c.u32()
  const count = await c.u64('an array length')
  if (itemType in VALUE_BYTES && itemType !== 6 && itemType !== 12 && count <= KEPT_ARRAY_ITEMS) {
    const items: number[] = []
    for (let i = 0; i < count; i++) items.push(await c.scalar(itemType))
    return items
  }
  if (itemType in VALUE_BYTES) return void c.skip(count * VALUE_BYTES[itemType])
  if (itemType !== 8) throw new Error(`${where}: unsupported array item type ${itemType}`)
  for (let i = 0; i < count; i++) await c.string(false)
  return undefined
}

async function readHeader(c: Cursor, where: string, fileSize: number): Promise<GgufSummary> {
  const magic = await c.u32()
  if (magic !== 0x46554747) throw new Error(`${where}: not a GGUF file (no GGUF magic)`)
  const version = await c.u32()
  if (version < 2 || version > 3) throw new Error(`${where}: GGUF version ${version} is not supported (2 or 3)`)
  const tensors = await c.u64('the tensor count')
  const kvs = await c.u64('the metadata count')
  if (tensors > MAX_TENSORS) throw new Error(`${where}: ${tensors} tensors; at most ${MAX_TENSORS}`)
  const metadata = new Map<string, GgufValue>()
  for (let i = 0; i < kvs; i++) {
    const key = (await c.string(true)) ?? ''
    const v = await value(c, await c.u32(), where)
    if (v !== undefined) metadata.set(key, v)
  }
  let tensorBytes = 0
  const roles = noRoles()
  let end = 0
  for (let i = 0; i < tensors; i++) {
    const name = (await c.string(true)) ?? ''
    const nDims = await c.u32()
    if (nDims > 8) throw new Error(`${where}: tensor ${JSON.stringify(name)} has ${nDims} dimensions`)
    const dims: number[] = []
    for (let d = 0; d < nDims; d++) dims.push(await c.u64('a tensor dimension'))
    const bytes = ggmlTensorBytes(await c.u32(), dims, name)
    const offset = await c.u64('a tensor offset')
    tensorBytes += bytes
    roles[tensorRole(name)] += bytes
    end = Math.max(end, offset + bytes)
  }
  const align = metadata.get('general.alignment')
  const alignment = typeof align === 'number' && align > 0 ? align : DEFAULT_ALIGNMENT
  const dataStart = Math.ceil(c.pos / alignment) * alignment
  if (dataStart + end > fileSize) throw new Error(`${where}: its tensors run past the end of the file`)
  return { version, tensors, tensorBytes, roles, dataStart, metadata }
}

/** The tensor table of the GGUF file at `path`; throws naming the file when it is not one this reader can read. */
export async function readGgufHeader(path: string): Promise<GgufSummary> {
  const file = await open(path, 'r')
  try {
    const { size } = await file.stat()
    return await readHeader(new Cursor(file, size, path), path, size)
  } finally {
    await file.close()
  }
}
