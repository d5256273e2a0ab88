/**
 * A safetensors file's tensor bytes, read from its header alone (huggingface/safetensors README, "Format"): an
 * unsigned little-endian 64-bit header length N, then N bytes of JSON mapping each tensor name to its `dtype`,
 * `shape` and `data_offsets` [begin, end) into the byte buffer that follows; the `__metadata__` key is not a
 * tensor. The library refuses headers over 100 MB, and so does this reader. The tensor data is never read.
 */
import { open } from 'node:fs/promises'
import { noRoles, tensorRole, type TensorRole } from './model-shape.js'

/** safetensors' own limit (`MAX_HEADER_SIZE` in the crate's `tensor.rs`). */
export const MAX_SAFETENSORS_HEADER_BYTES = 100_000_000

export interface SafetensorsSummary {
  tensors: number
  /** Σ (end − begin) of every tensor's `data_offsets`. */
  tensorBytes: number
  /** The same bytes by what a decode step does with each tensor (model-shape.ts). */
  roles: Record<TensorRole, number>
  /** Bytes before the data buffer: 8 + the header length. */
  dataStart: number
}

function tensorRange(name: string, entry: unknown, buffer: number, where: string): number {
  const offsets = (entry as { data_offsets?: unknown } | null)?.data_offsets
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0))
    throw new Error(`${where}: tensor ${JSON.stringify(name)} has no data_offsets [begin, end]`)
  const [begin, end] = offsets as [number, number]
  if (end < begin || end > buffer)
    throw new Error(`${where}: tensor ${JSON.stringify(name)} lies outside the file's ${buffer}-byte data buffer`)
  return end - begin
}

/** The tensor bytes of the safetensors file at `path`; throws naming the file when its header is not readable. */
export async function readSafetensorsHeader(path: string): Promise<SafetensorsSummary> {
  const file = await open(path, 'r')
  try {
    const { size } = await file.stat()
    const head = Buffer.alloc(8)
    if (size < 8 || (await file.read(head, 0, 8, 0)).bytesRead < 8)
      throw new Error(`${path}: too short for a safetensors header`)
    const length = head.readBigUInt64LE(0)
    if (length > BigInt(Math.min(MAX_SAFETENSORS_HEADER_BYTES, size - 8)))
      throw new Error(`${path}: a header of ${length} bytes does not fit the file or the 100 MB limit`)
    const json = Buffer.alloc(Number(length))
    if ((await file.read(json, 0, json.length, 8)).bytesRead < json.length)
      throw new Error(`${path}: the header runs past the end of the file`)
    let header: unknown
    try {
      header = JSON.parse(json.toString('utf8'))
    } catch {
      throw new Error(`${path}: the header is not JSON`)
    }
    if (typeof header !== 'object' || header === null || Array.isArray(header))
      throw new Error(`${path}: the header is not a JSON object`)
    const dataStart = 8 + json.length
    let tensors = 0
    let tensorBytes = 0
    const roles = noRoles()
    for (const [name, entry] of Object.entries(header)) {
      if (name === '__metadata__') continue
      const bytes = tensorRange(name, entry, size - dataStart, path)
      tensors++
      tensorBytes += bytes
      roles[tensorRole(name)] += bytes
    }
    return { tensors, tensorBytes, roles, dataStart }
  } finally {
    await file.close()
  }
}
