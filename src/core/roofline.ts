/**
 * The roofline a cell records (results field `roofline`): its decode as a share of the decode rate the box's memory
 * bandwidth allows. One decode step reads the weights once (at their stored precision, the lm_head included) and the
 * KV cache of every sequence in the batch, so a stream can decode no faster than
 * bandwidth ÷ (weights + concurrency · KV bytes at the cell's depth); a drafting engine emits its acceptance length
 * per such step. The arithmetic is in compare/roofline.ts; the box's and the model's figures come from the setting
 * `bandwidth` or the detected GPU, and from the setting `model-bytes` or the model's files (host/model-bytes.ts).
 */
import { formatNumber } from './format.js'

/** Where a figure came from, as the report says it: `setting bandwidth`, `NVIDIA GB10 (published)`, `model files`. */
export interface SourcedFigure {
  value: number
  source: string
  /** What the box reads in practice, where it was measured and published: the realistic ceiling beside the nominal one. */
  measured?: { value: number; source: string }
}

/** The bytes one decode step reads of the model, before the KV cache. */
export interface ModelBytes {
  /** Tensor bytes of the weights as stored (every tensor, lm_head included), or what `model-bytes` says. */
  weights: number
  source: string
  /** Of `weights`, what a decode step does not read: untied input embeddings (one row per token), a vision tower, an MTP head. */
  unread?: number
  /** KV cache bytes one token adds (K and V of every attention layer), where the model's config says. */
  kvPerToken?: number
  /** A mixture of experts: the bytes of the expert tensors among `weights`, and how many a token routes to. */
  experts?: { bytes: number; count: number; used: number }
}

export interface RooflineFigures {
  /** The per-stream decode tok/s the bandwidth allows at this depth and concurrency (× acceptance length when drafting). */
  ceilingTps: number
  /** The cell's decode tok/s over `ceilingTps`. */
  share: number
  /** The decode figure compared: 1000 / mean TPOT of the steady rounds. */
  decodeTps: number
  /** Bytes per second the box reads, and where the figure came from. */
  bandwidth: { bytesPerS: number; source: string; measured?: { bytesPerS: number; source: string } }
  /** Bytes one step reads: the weights once (the experts the batch routes to, for a mixture of experts), the KV cache of each sequence. */
  step: { bytes: number; weights: number; kv: number; kvPerToken?: number; source: string }
  /** Tokens in context a step reads the KV cache of: the input tokens and half the output tokens. */
  depth: number
  concurrency: number
  /** The tokens per verify step the plain ceiling was multiplied by; absent for a cell that does not draft. */
  acceptanceLength?: number
}

/** The results field: the figures, or why a cell whose box or model was known has none. */
export type CellRoofline = RooflineFigures | { unavailable: string }

export const hasFigures = (r: CellRoofline | undefined): r is RooflineFigures => r !== undefined && 'ceilingTps' in r

/**
 * Memory bandwidth per GPU name as `nvidia-smi` prints it, from the vendor's published figures; the first match wins,
 * so a variant comes before its family.
 */
export const GPU_BANDWIDTH: readonly {
  name: RegExp
  bytesPerS: number
  source: string
  measured?: { value: number; source: string }
}[] = [
  // NVIDIA DGX Spark data sheet (nvidia.com/en-us/products/workstations/dgx-spark/): 273 GB/s LPDDR5X. A saturating
  // read measures 231-234 GB/s on one (antirez/ds4 issue 773): what decoding can approach.
  {
    name: /\bGB10\b/i,
    bytesPerS: 273e9,
    source: 'NVIDIA DGX Spark data sheet',
    measured: { value: 232e9, source: 'a saturating read, antirez/ds4 #773' },
  },
  // NVIDIA H100 data sheet (nvidia.com/en-us/data-center/h100/): SXM 3.35 TB/s, NVL 3.9 TB/s, PCIe 2 TB/s.
  { name: /\bH100\b.*\bNVL\b/i, bytesPerS: 3.9e12, source: 'NVIDIA H100 NVL data sheet' },
  { name: /\bH100\b.*\bPCIe\b/i, bytesPerS: 2e12, source: 'NVIDIA H100 PCIe data sheet' },
  { name: /\bH100\b/i, bytesPerS: 3.35e12, source: 'NVIDIA H100 SXM data sheet' },
  // NVIDIA H200 data sheet (nvidia.com/en-us/data-center/h200/): SXM and NVL 4.8 TB/s.
  { name: /\bH200\b/i, bytesPerS: 4.8e12, source: 'NVIDIA H200 data sheet' },
]

/** The published bandwidth of a GPU by its name, or undefined for one the table does not know. */
export function gpuBandwidth(name: string | undefined): SourcedFigure | undefined {
  if (!name) return undefined
  const known = GPU_BANDWIDTH.find((g) => g.name.test(name))
  return (
    known && {
      value: known.bytesPerS,
      source: `${name}: ${known.source}`,
      ...(known.measured && { measured: known.measured }),
    }
  )
}

/**
 * What an engine says of its own box and model in its server facts (`info.server.roofline`): the simulator's
 * profile, scaled by its time scale. Untrusted like every answer: only finite positive numbers are taken.
 */
export interface RooflineHint {
  bandwidth?: number
  weights?: number
  kvPerToken?: number
  source: string
}

export const ROOFLINE_HINT_KEY = 'roofline'

export function readRooflineHint(server: Record<string, unknown> | undefined): RooflineHint | undefined {
  const raw = server?.[ROOFLINE_HINT_KEY]
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined
  const r = raw as Record<string, unknown>
  const positive = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined)
  const source = typeof r.source === 'string' ? r.source.slice(0, 200) : 'engine'
  const hint: RooflineHint = { source }
  if (positive(r.bandwidth)) hint.bandwidth = positive(r.bandwidth)
  if (positive(r.weights)) hint.weights = positive(r.weights)
  if (r.kvPerToken !== undefined && positive(r.kvPerToken)) hint.kvPerToken = positive(r.kvPerToken)
  return hint.bandwidth || hint.weights ? hint : undefined
}

/** Decimal units, as memory bandwidth and model sizes are published: `16.4 GB`, `273 GB/s`, `3.35 TB/s`. */
export function formatDecimalBytes(bytes: number): string {
  const units: [number, string][] = [
    [1e12, 'TB'],
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'kB'],
  ]
  const [factor, unit] = units.find(([f]) => bytes >= f) ?? [1, 'B']
  return `${Number((bytes / factor).toPrecision(3))} ${unit}`
}

export const formatBandwidth = (bytesPerS: number): string => `${formatDecimalBytes(bytesPerS)}/s`

/** `16.6 tok/s (273 GB/s ÷ 16.4 GB per step: weights 16.4 GB, KV 0 B at depth 1,088 × 1)`. */
/** `; ≈ 14.1 tok/s at the 232 GB/s a saturating read measures (…)`: the realistic ceiling, where one is known. */
function measuredText(r: RooflineFigures, plain: number): string {
  const m = r.bandwidth.measured
  if (!m) return ''
  const tps = (plain * m.bytesPerS) / r.bandwidth.bytesPerS
  return `; ≈ ${formatNumber(tps)} tok/s at the ${formatBandwidth(m.bytesPerS)} measured (${m.source})`
}

export function ceilingText(r: RooflineFigures): string {
  const plain = r.acceptanceLength ? r.ceilingTps / r.acceptanceLength : r.ceilingTps
  const drafted = r.acceptanceLength
    ? ` × acceptance length ${formatNumber(r.acceptanceLength)} = ${formatNumber(r.ceilingTps)} tok/s`
    : ''
  const kv = `KV ${formatDecimalBytes(r.step.kv)} at depth ${Math.round(r.depth).toLocaleString('en-US')} × ${r.concurrency}`
  return (
    `${formatNumber(plain)} tok/s${drafted} (${formatBandwidth(r.bandwidth.bytesPerS)} from ${r.bandwidth.source} ÷ ` +
    `${formatDecimalBytes(r.step.bytes)} per step: weights ${formatDecimalBytes(r.step.weights)} from ${r.step.source}, ${kv})` +
    measuredText(r, plain)
  )
}
