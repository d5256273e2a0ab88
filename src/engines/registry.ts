/** The one list of engines: the matrix file's `engine` enum and engine options derive from it, so an engine is its adapter file plus one line here. */
import type { EngineAdapter } from './types.js'
import { vllm } from './vllm.js'
import { sglang } from './sglang.js'
import { llamacpp } from './llamacpp.js'
import { openai } from './openai.js'
import { sim } from './sim.js'
import { trtllm } from './trtllm.js'
import { external } from './external.js'

export const ENGINES = [
  vllm,
  sglang,
  llamacpp,
  trtllm,
  openai,
  sim,
  external,
] as const satisfies readonly EngineAdapter[]

export const ENGINE_NAMES = ENGINES.map((e) => e.name) as [string, ...string[]]

export function engineByName(name: string): EngineAdapter {
  const engine = ENGINES.find((e) => e.name === name)
  if (!engine) throw new Error(`unknown engine "${name}" (valid: ${ENGINE_NAMES.join(', ')})`)
  return engine
}
