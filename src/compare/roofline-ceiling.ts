/**
 * A cell's decode against the box's memory-bandwidth ceiling (core/roofline.ts has the model). Pure: the box's
 * bandwidth and the model's bytes come in as data. A decode above the ceiling cannot be real — a token that was
 * never computed, a clock that ran slow, a model smaller than the one named — so a cell that does not draft and
 * decodes faster is an error; a drafting cell emits up to its acceptance length per step and is held to that.
 */
import { formatNumber } from '../core/format.js'
import { ceilingText, type CellRoofline, type ModelBytes, type SourcedFigure } from '../core/roofline.js'

/** What a target knows of its box and model; `unavailable` says why the model's bytes are not known. */
export interface RooflineBox {
  bandwidth?: SourcedFigure
  model?: ModelBytes
  unavailable?: string
}

/** One cell's side: its decode, its workload and, when it drafts, its acceptance length. */
export interface RooflineCell {
  decodeTps: number | undefined
  inputTokens: number
  outputTokens: number
  concurrency: number
  /** The engine reported spec-decode figures: it drafts. */
  drafting: boolean
  acceptanceLength?: number
}

/**
 * The weights one step reads: every tensor but those it does not (`unread`), and of a mixture of experts only the
 * experts the batch routes to — with `used` of `count` experts per token and routing taken as uniform, c tokens
 * leave an expert unread with probability (1 − used/count)^c.
 */
export function stepWeights(model: ModelBytes, concurrency: number): number {
  const read = model.weights - (model.unread ?? 0)
  const e = model.experts
  if (!e || e.count <= 0 || e.used >= e.count) return read
  const touched = 1 - (1 - e.used / e.count) ** Math.max(1, concurrency)
  return read - e.bytes + e.bytes * touched
}

/** The cell's roofline; undefined when neither the box nor the model is known, or nothing was decoded. */
export function cellRoofline(box: RooflineBox, cell: RooflineCell): CellRoofline | undefined {
  const { bandwidth, model } = box
  if (!bandwidth && !model) return undefined
  if (!bandwidth) return { unavailable: "no memory bandwidth known for this box's GPU: set bandwidth (e.g. 273GB/s)" }
  if (!model) return { unavailable: box.unavailable ?? 'the model bytes are not known: set model-bytes' }
  const decodeTps = cell.decodeTps
  if (decodeTps === undefined || !Number.isFinite(decodeTps) || decodeTps <= 0) return undefined
  const concurrency = Math.max(1, cell.concurrency)
  const depth = cell.inputTokens + cell.outputTokens / 2
  const weights = stepWeights(model, concurrency)
  const kv = concurrency * depth * (model.kvPerToken ?? 0)
  const bytes = weights + kv
  const accept = cell.drafting && cell.acceptanceLength && cell.acceptanceLength > 0 ? cell.acceptanceLength : undefined
  const ceilingTps = (bandwidth.value / bytes) * (accept ?? 1)
  return {
    ceilingTps,
    share: decodeTps / ceilingTps,
    decodeTps,
    bandwidth: {
      bytesPerS: bandwidth.value,
      source: bandwidth.source,
      ...(bandwidth.measured && {
        measured: { bytesPerS: bandwidth.measured.value, source: bandwidth.measured.source },
      }),
    },
    step: {
      bytes,
      weights,
      kv,
      ...(model.kvPerToken !== undefined && { kvPerToken: model.kvPerToken }),
      source: model.source,
    },
    depth,
    concurrency,
    ...(accept !== undefined && { acceptanceLength: accept }),
  }
}

/**
 * The error of a cell that decodes faster than the box's memory allows: above the ceiling, or for a drafting cell
 * above the ceiling times its acceptance length. A drafting cell whose acceptance length is unknown is not held.
 */
export function rooflineProblem(r: CellRoofline | undefined, cell: Pick<RooflineCell, 'drafting'>): string | undefined {
  if (!r || !('ceilingTps' in r) || r.share <= 1) return undefined
  if (cell.drafting && !r.acceptanceLength) return undefined
  return (
    `decode ${formatNumber(r.decodeTps)} tok/s is faster than memory bandwidth allows: check the measurement ` +
    `(${Math.round(r.share * 100)} % of the ceiling ${ceilingText(r)})`
  )
}
