/**
 * What a reader calls a cell's runtime and engine: the container image tag it ran in, else the engine's
 * own build or version as its info endpoint reported it (vLLM `/version`, SGLang server info, llama.cpp
 * `/props`). A simulated engine reports what it stands in for (`emulates`) and is shown as that, marked
 * `(sim)`, never as the simulator's own version.
 */
import type { CellResult } from './results.js'

type Described = Pick<CellResult, 'engine' | 'info'>

/** The engine a simulator profile stands in for (`vLLM nv_vllm 26.03`), when the server reported one. */
export function emulated(cell: Described): string | undefined {
  const value = cell.info.server?.emulates
  return typeof value === 'string' && value.trim() && value !== 'sim' ? value.trim() : undefined
}

/** `vllm-openai:v0.9.1` for an image `docker.io/vllm/vllm-openai:v0.9.1@sha256:…`. */
export function imageTag(image: string): string {
  const name = image.split('@')[0]
  return name.slice(name.lastIndexOf('/') + 1) || image
}

/** `vllm-openai:v0.9.1`, `vLLM nv_vllm 26.03 (sim)`, `llamacpp b6100`, or the engine alone. */
export function runtimeLabel(cell: Described): string {
  const image = cell.info.container?.image
  if (image) return imageTag(image)
  const emulates = emulated(cell)
  if (emulates) return `${emulates} (sim)`
  const version = cell.info.version?.trim()
  if (!version) return cell.engine
  return version.toLowerCase().startsWith(cell.engine.toLowerCase()) ? version : `${cell.engine} ${version}`
}

/** The engine's name as the report's Engine column shows it: `vLLM (sim)` for a simulator standing in for vLLM. */
export function engineLabel(cell: Described): string {
  const emulates = emulated(cell)
  return emulates ? `${emulates.split(/\s+/)[0]} (sim)` : cell.engine
}
