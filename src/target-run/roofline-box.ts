/**
 * A target's roofline inputs and each cell's roofline (core/roofline.ts). The box's bandwidth is the setting
 * `bandwidth`, else what the engine says of its box (the simulator, scaled by its time scale), else the published
 * figure of the GPU the preflight found. The model's bytes are the setting `model-bytes`, else the headers of the
 * model's files — the target's `model` when it is a local path, or the launch's `-m`/`--model` file (llama.cpp's
 * flag) — else what the engine says. A cell that decodes faster than the ceiling allows becomes an `error`.
 */
import { cellRoofline, rooflineProblem, type RooflineBox } from '../compare/roofline-ceiling.js'
import { errorMessage } from '../core/errors.js'
import type { HostState } from '../core/host.js'
import { readMetric } from '../core/metrics.js'
import type { TargetPlan } from '../core/plan.js'
import type { CellResult, TargetInfo } from '../core/results.js'
import { gpuBandwidth, readRooflineHint, type ModelBytes, type SourcedFigure } from '../core/roofline.js'
import { DEFAULT_KV_BYTES, readModelBytes } from '../host/model-bytes.js'
import { launchModelPath, localModelPath } from '../config/model-files.js'

export { launchModelPath, localModelPath }

/**
 * Bytes per KV cache element the launch asks for: vLLM's and SGLang's `--kv-cache-dtype fp8…` one byte; llama.cpp's
 * `-ctk`/`-ctv` (`--cache-type-k`/`-v`) by their ggml types; F16/BF16 otherwise.
 */
export function kvBytes(launch: string | undefined): number {
  const flag = (names: string) => new RegExp(`(?:^|\\s)(?:${names})[=\\s]+(\\S+)`).exec(launch ?? '')?.[1]
  const dtype = flag('--kv-cache-dtype')
  if (dtype?.startsWith('fp8')) return 1
  const llama: Record<string, number> = {
    f32: 4,
    f16: 2,
    bf16: 2,
    q8_0: 34 / 32,
    q5_1: 24 / 32,
    q5_0: 22 / 32,
    q4_1: 20 / 32,
    q4_0: 18 / 32,
    iq4_nl: 18 / 32,
  }
  const k = llama[flag('-ctk|--cache-type-k') ?? 'f16'] ?? DEFAULT_KV_BYTES
  const v = llama[flag('-ctv|--cache-type-v') ?? 'f16'] ?? DEFAULT_KV_BYTES
  return (k + v) / 2
}

function bandwidthOf(target: TargetPlan, host: HostState, info: TargetInfo): SourcedFigure | undefined {
  if (target.settings.bandwidth) return { value: target.settings.bandwidth, source: 'setting bandwidth' }
  const hint = readRooflineHint(info.server)
  if (hint?.bandwidth) return { value: hint.bandwidth, source: hint.source }
  return gpuBandwidth(host.gpus?.find((g) => g.name)?.name)
}

/** The model's bytes per step, or why they are not known. */
async function modelOf(target: TargetPlan, info: TargetInfo): Promise<{ model?: ModelBytes; unavailable?: string }> {
  const cwd = target.workdir ?? process.cwd()
  const path = localModelPath(target.model, cwd) ?? launchModelPath(target.launch, cwd)
  const hint = readRooflineHint(info.server)
  let files: ModelBytes | undefined
  let failed: string | undefined
  if (path) {
    try {
      files = await readModelBytes(path, kvBytes(target.launch))
    } catch (error) {
      failed = `model bytes not read from ${path}: ${errorMessage(error)}`
    }
  }
  const given = target.settings.modelBytes
  if (given) {
    const kvPerToken = files?.kvPerToken ?? hint?.kvPerToken
    return { model: { weights: given, source: 'setting model-bytes', ...(kvPerToken !== undefined && { kvPerToken }) } }
  }
  if (files) return { model: files }
  if (hint?.weights)
    return {
      model: {
        weights: hint.weights,
        source: hint.source,
        ...(hint.kvPerToken !== undefined && { kvPerToken: hint.kvPerToken }),
      },
    }
  if (failed) return { unavailable: `${failed}; set model-bytes` }
  const named = target.model ? `model ${JSON.stringify(target.model)} is not a local path` : 'no model path'
  return { unavailable: `${named} and the launch names no model file: set model-bytes for a roofline` }
}

/** What the target's cells are held to: the box's bandwidth and the model's bytes, each with its source. */
export async function rooflineBox(target: TargetPlan, host: HostState, info: TargetInfo): Promise<RooflineBox> {
  const bandwidth = bandwidthOf(target, host, info)
  return { ...(bandwidth && { bandwidth }), ...(await modelOf(target, info)) }
}

/** The cell with its roofline; a decode above the ceiling (× acceptance length when drafting) makes it an `error`. */
export function withRoofline(cell: CellResult, box: RooflineBox | undefined): CellResult {
  if (!box || !cell.metrics) return cell
  const spec = cell.specDecode
  const drafting = spec !== undefined
  const roofline = cellRoofline(box, {
    decodeTps: readMetric(cell.metrics, 'decode', 'mean'),
    inputTokens: cell.workload.inputTokens,
    outputTokens: cell.workload.outputTokens,
    concurrency: cell.workload.concurrency,
    drafting,
    acceptanceLength: spec?.acceptanceLength,
  })
  if (!roofline) return cell
  const problem = rooflineProblem(roofline, { drafting })
  if (!problem) return { ...cell, roofline }
  return {
    ...cell,
    roofline,
    status: 'error',
    error: problem,
    verdict: { status: 'error', metrics: {}, note: problem },
  }
}
