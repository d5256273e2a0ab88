/**
 * The bytes a model's weights take as stored, read from its files' headers (safetensors-header.ts,
 * gguf-header.ts), with the KV cache bytes per token and the experts of its `config.json` or GGUF metadata
 * (model-shape.ts). A path is a `.gguf` file (with the other parts of a split one, `name-00001-of-00003.gguf`,
 * llama.cpp's `gguf-split` naming), a `.safetensors` file, or a directory: its safetensors shards as
 * `model.safetensors.index.json` lists them (transformers' sharded checkpoints), else its `.safetensors` files,
 * else its one GGUF model (vision projectors, `mmproj*`, left out).
 */
import { readdir, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { ModelBytes } from '../core/roofline.js'
import { readRegularFile } from '../io/safe-fs.js'
import { readGgufHeader } from './gguf-header.js'
import { configShape, ggufShape, noRoles, TENSOR_ROLES, type ModelShape } from './model-shape.js'
import { readSafetensorsHeader } from './safetensors-header.js'

const MAX_FILES = 1024
const MAX_JSON_BYTES = 16 * 1024 * 1024
const SPLIT = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/
/** KV cache element bytes when the launch says nothing: F16/BF16, every engine's default for these models. */
export const DEFAULT_KV_BYTES = 2

type Files = { kind: 'gguf' | 'safetensors'; files: string[]; dir: string }

/** The GGUF parts of one model: the file, or every part of its split set. */
async function ggufParts(file: string): Promise<string[]> {
  const split = SPLIT.exec(basename(file))
  if (!split) return [file]
  const [, stem, , of] = split
  const total = Number(of)
  if (total > MAX_FILES) throw new Error(`${file}: split into ${total} parts; at most ${MAX_FILES}`)
  return Array.from({ length: total }, (_, i) =>
    join(dirname(file), `${stem}-${String(i + 1).padStart(5, '0')}-of-${of}.gguf`),
  )
}

async function indexedShards(dir: string): Promise<string[] | undefined> {
  const index = join(dir, 'model.safetensors.index.json')
  const text = await readRegularFile(index, MAX_JSON_BYTES).catch(() => undefined)
  if (text === undefined) return undefined
  const map = (JSON.parse(text) as { weight_map?: unknown }).weight_map
  if (typeof map !== 'object' || map === null) throw new Error(`${index}: no weight_map`)
  const names = [...new Set(Object.values(map))]
  if (!names.every((n) => typeof n === 'string' && basename(n) === n && n.endsWith('.safetensors')))
    throw new Error(`${index}: weight_map names a file outside the directory`)
  return (names as string[]).map((n) => join(dir, n))
}

async function directoryFiles(dir: string): Promise<Files> {
  const indexed = await indexedShards(dir)
  if (indexed) return { kind: 'safetensors', files: indexed, dir }
  const names = (await readdir(dir)).sort()
  const safetensors = names.filter((n) => n.endsWith('.safetensors'))
  if (safetensors.length) return { kind: 'safetensors', files: safetensors.map((n) => join(dir, n)), dir }
  const ggufs = names.filter((n) => n.endsWith('.gguf') && !n.startsWith('mmproj'))
  const models = new Set(ggufs.map((n) => SPLIT.exec(n)?.[1] ?? n))
  if (models.size === 1) return { kind: 'gguf', files: await ggufParts(join(dir, ggufs[0])), dir }
  if (models.size > 1)
    throw new Error(`${dir}: holds ${models.size} GGUF models (${[...models].slice(0, 3).join(', ')}…): name the file`)
  throw new Error(`${dir}: no .safetensors or .gguf file`)
}

async function modelFiles(path: string): Promise<Files> {
  const s = await stat(path)
  if (s.isDirectory()) return directoryFiles(path)
  if (path.endsWith('.gguf')) return { kind: 'gguf', files: await ggufParts(path), dir: dirname(path) }
  if (path.endsWith('.safetensors')) return { kind: 'safetensors', files: [path], dir: dirname(path) }
  throw new Error(`${path}: not a .gguf or .safetensors file, nor a directory of them`)
}

async function configFile(dir: string): Promise<unknown> {
  const text = await readRegularFile(join(dir, 'config.json'), MAX_JSON_BYTES).catch(() => undefined)
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The model at `path` as one decode step reads it: its tensor bytes and those a step does not read, KV bytes per
 * token at `kvBytes` per element, its experts. Throws naming the file when a header cannot be read.
 */
export async function readModelBytes(path: string, kvBytes = DEFAULT_KV_BYTES): Promise<ModelBytes> {
  const found = await modelFiles(path)
  if (found.files.length > MAX_FILES) throw new Error(`${path}: ${found.files.length} files; at most ${MAX_FILES}`)
  let weights = 0
  const roles = noRoles()
  let shape: ModelShape = {}
  for (const file of found.files) {
    const gguf = found.kind === 'gguf' ? await readGgufHeader(file) : undefined
    const summary = gguf ?? (await readSafetensorsHeader(file))
    weights += summary.tensorBytes
    for (const role of TENSOR_ROLES) roles[role] += summary.roles[role]
    // The first part of a split GGUF carries the metadata.
    if (gguf?.metadata.has('general.architecture')) shape = ggufShape(gguf.metadata, kvBytes)
  }
  if (found.kind === 'safetensors') shape = configShape(await configFile(found.dir), kvBytes)
  const parts = found.files.length === 1 ? basename(found.files[0]) : `${found.files.length} ${found.kind} files`
  // Tied embeddings are the lm_head, read whole every step; untied, a step reads one row of them per token.
  const unread = roles.unread + (roles.head > 0 ? roles.embed : 0)
  return {
    weights,
    source: `${found.kind} headers of ${parts}`,
    ...(unread > 0 && { unread }),
    ...(shape.kvPerToken !== undefined && { kvPerToken: shape.kvPerToken }),
    ...(shape.experts && roles.expert > 0 && { experts: { bytes: roles.expert, ...shape.experts } }),
  }
}
