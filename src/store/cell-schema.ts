/**
 * zod schema of one cell of a `llm-bench-gate/results@1` file, mirroring `CellResult` in core/results.ts and the
 * blocks of core/measurements.ts: its workload, steady metrics and rounds, verdict, output quality and host.
 * First-release shapes are upgraded as they are read (release-one.ts).
 */
import { z } from 'zod'
import {
  DISTRIBUTION_METRICS,
  OPTIONAL_SCALAR_METRICS,
  SCALAR_METRICS,
  type DistributionMetric,
  type OptionalScalarMetric,
  type ScalarMetric,
  type Stats,
} from '../core/measurements.js'
import { DECODE_FACTORS, GATED_METRICS, GATE_STATS, type GatedMetric } from '../core/metrics.js'
import { CELL_STATUSES, CELL_VERDICTS, METRIC_VERDICTS } from '../core/results.js'
import { DEGENERATE_KINDS } from '../core/quality.js'
import { PROBE_MAX_QUESTIONS } from '../quality/index.js'
import { SLOWDOWN_REASONS } from '../core/host.js'
import { PROMPT_KINDS } from '../core/plan.js'
import { upgradeMetricVerdict, upgradeReference, withCellShare, withRoundShare } from './release-one.js'
import { bool, dict, keyedBy, list, num, numOrNull, obj, oneOf, str, strOrNull, want } from './results-fields.js'
import { roundHostSchema } from './round-host-schema.js'
import { rooflineSchema } from './roofline-schema.js'

/** An object keyed by gated metric names (`decode`, `ttft`, …). */
const byGatedMetric = <T extends z.ZodType>(value: T) =>
  z.partialRecord(z.enum(GATED_METRICS), value, keyedBy(GATED_METRICS, 'gated metric'))

// null: a figure the tool that measured the cell did not report (an ingested file without p90, say).
const figure = num.nullable()
const stats = obj({
  mean: figure,
  p50: figure,
  p90: figure,
  p99: figure,
  std: figure,
  min: figure,
  max: figure,
} satisfies Record<keyof Stats, unknown>)

/** Round-level figures the first release did not write. */
const LATER_SCALARS: readonly ScalarMetric[] = ['failed_share']

type BlockShape = Record<DistributionMetric, typeof stats> &
  Record<Exclude<ScalarMetric, 'failed_share'>, typeof figure> & { failed_share: z.ZodOptional<typeof figure> }
const blockShape = Object.fromEntries([
  ...DISTRIBUTION_METRICS.map((key) => [key, stats]),
  ...SCALAR_METRICS.map((key) => [key, LATER_SCALARS.includes(key) ? figure.optional() : figure]),
  ...OPTIONAL_SCALAR_METRICS.map((key) => [key, num.optional()]),
]) as BlockShape & Record<OptionalScalarMetric, z.ZodOptional<typeof num>>
const metricsBlock = z.looseObject(blockShape, { error: want('an object') })
const metricsBlockOrNull = z.looseObject(blockShape, { error: want('an object or null') }).nullable()

const range = obj({ min: num, max: num })
/** The GPUs a target's checks and energy counted (`rounds[].gpu.counted`, `host.counted`). */
const gpuScope = obj({ gpus: list(obj({ index: num, uuid: str.optional() })), of: num, from: str })
const round = obj({
  index: num,
  steady: bool,
  requests: num,
  errors: num,
  errorReasons: list(obj({ reason: str, count: num })),
  durationMs: num,
  metrics: metricsBlock,
  prompts: str.regex(/^[0-9a-f]{8}$/).optional(),
  gpu: obj({
    devices: list(obj({ index: num, samples: num })),
    energyJ: num.optional(),
    counted: gpuScope.optional(),
    clockDrop: str.optional(),
  }).optional(),
  server: obj({
    deltas: dict(num),
    peaks: dict(num),
    means: dict(num),
    rates: dict(num).optional(),
    samples: num,
  }).optional(),
  host: roundHostSchema.optional(),
  turns: list(obj({ turn: num, ok: num, ttft_ms: num, prompt_tokens: num, added_tokens: num.optional() })).optional(),
  achieved: obj({ promptTokens: range, outputTokens: range }),
}).transform(withRoundShare)

/** A verdict on one of decode's spec-decode factors (acceptance length, step time), kept in decode's. */
const factorVerdict = obj({
  status: oneOf(METRIC_VERDICTS),
  metric: oneOf(DECODE_FACTORS as readonly [GatedMetric, ...GatedMetric[]]),
  current: num,
  baseline: num,
  delta: numOrNull,
  reason: str,
})

const metricVerdict = z.preprocess(
  upgradeMetricVerdict,
  obj({
    status: oneOf(METRIC_VERDICTS),
    metric: z.enum(GATED_METRICS, {
      error: want(`a gated metric (${GATED_METRICS.join(', ')}) or a metric key like "decode_tps.mean"`),
    }),
    stat: oneOf(GATE_STATS),
    current: num,
    baseline: num,
    delta: numOrNull,
    reason: str,
    mde: num.optional(),
    limit: num.optional(),
    launchSpread: num.optional(),
    factors: list(factorVerdict).optional(),
  }),
)

const verdictMetrics = byGatedMetric(metricVerdict).superRefine((metrics, ctx) => {
  for (const [key, verdict] of Object.entries(metrics)) {
    if (verdict && verdict.metric !== key)
      ctx.addIssue({
        code: 'custom',
        path: [key, 'metric'],
        message: `is "${verdict.metric}", but the verdict is filed under "${key}"`,
      })
  }
})

export const cellVerdict = obj({
  status: oneOf(CELL_VERDICTS),
  metrics: verdictMetrics,
  note: str.optional(),
  serverChanges: list(str).optional(),
  disturbed: list(str).optional(),
  confirmed: num.optional(),
  reference: z.preprocess(upgradeReference, byGatedMetric(obj({ stat: oneOf(GATE_STATS), value: num }))).optional(),
  skipped: oneOf(['unchanged'] as const).optional(),
  comparedWith: str.optional(),
  mde: byGatedMetric(num).optional(),
  creep: list(
    obj({
      metric: z.enum(GATED_METRICS, { error: want(`a gated metric (${GATED_METRICS.join(', ')})`) }),
      change: num,
      band: num,
      since: str,
      merges: num,
      eachWithin: z.boolean({ error: want('true or false') }),
      reason: str,
    }),
  ).optional(),
})

const share = z
  .number({ error: want('a number from 0 to 1') })
  .min(0, { error: want('a number from 0 to 1') })
  .max(1, { error: want('a number from 0 to 1') })

/** `quality`, which files before the output quality guard lack. */
const quality = obj({
  probe: obj({
    seed: num,
    questions: num,
    correct: num,
    accuracy: share,
    missed: list(num).max(PROBE_MAX_QUESTIONS).optional(),
    cut: num.optional(),
    greedy: list(obj({ prompt: str, text: str })),
    failed: num.optional(),
  }).optional(),
  probeMs: num.optional(),
  agreement: obj({ mean: share, prompts: num, worst: str.optional() }).optional(),
  degenerate: obj({
    judged: num,
    degenerate: num,
    share: share.nullable(),
    kinds: obj(
      Object.fromEntries(DEGENERATE_KINDS.map((k) => [k, num])) as Record<
        (typeof DEGENERATE_KINDS)[number],
        typeof num
      >,
    ),
    example: str.optional(),
  }).optional(),
})

const slowdownCounters = z.partialRecord(z.enum(SLOWDOWN_REASONS), num, keyedBy(SLOWDOWN_REASONS, 'slowdown reason'))
const gpuState = obj({
  name: str.optional(),
  uuid: str.optional(),
  driver: str.optional(),
  smClockMhz: num.optional(),
  maxSmClockMhz: num.optional(),
  powerW: num.optional(),
  temperatureC: num.optional(),
  activeMask: str.optional(),
  active: list(oneOf(SLOWDOWN_REASONS)),
  counters: slowdownCounters.optional(),
})
const fingerprint = obj({
  ...Object.fromEntries(['driver', 'cuda', 'engine', 'image', 'digest', 'program'].map((k) => [k, str.optional()])),
  model: obj({ bytes: num, mtime: str }).optional(),
})
const host = obj({
  preflight: obj({
    gpus: list(gpuState).optional(),
    noGpu: str.optional(),
    cuda: str.optional(),
    processes: list(
      obj({
        pid: num,
        name: str,
        usedMemoryMiB: num.optional(),
        gpu: num.optional(),
        gpuUuid: str.optional(),
        ours: bool,
        allowed: bool.optional(),
        outside: bool.optional(),
      }),
    ).optional(),
    memory: obj({ availableBytes: num, totalBytes: num }).optional(),
    governors: list(str).optional(),
  }),
  counted: gpuScope.optional(),
  fingerprint,
  remeasured: list(obj({ round: num, reason: str })).optional(),
  changes: list(str).optional(),
  baseline: fingerprint.optional(),
})

export const cellSchema = obj({
  id: str,
  target: str,
  scenario: str,
  engine: str,
  quant: strOrNull,
  model: strOrNull,
  status: oneOf(CELL_STATUSES),
  error: strOrNull,
  flags: list(str),
  workload: obj({
    inputTokens: num,
    outputTokens: num,
    concurrency: num,
    requests: num,
    rate: numOrNull,
    api: oneOf(['completions', 'chat']).optional(),
    requestBody: str.optional(),
    unrequested: list(oneOf(['inputTokens', 'outputTokens'])).optional(),
    prefixTokens: num.optional(),
    slo: obj({ ttftMs: num.optional(), tpotMs: num.optional(), e2eMs: num.optional() }).optional(),
    prompts: oneOf(PROMPT_KINDS).optional(),
    turns: num.optional(),
    turnTokens: num.optional(),
    thinking: z.boolean().optional(),
  }),
  metrics: metricsBlockOrNull,
  rounds: list(round),
  info: obj({
    version: str.optional(),
    launch: str.optional(),
    server: dict(z.unknown()).optional(),
    logTail: str.optional(),
    container: obj({ runtime: str, image: str, digest: str.optional() }).optional(),
  }),
  specDecode: obj({
    acceptanceRate: num.optional(),
    acceptanceLength: num.optional(),
    draftTokens: num.optional(),
    acceptedTokens: num.optional(),
    source: str,
  }).optional(),
  quality: quality.optional(),
  host: host.optional(),
  startup_s: num.optional(),
  image_pull_s: num.optional(),
  roofline: rooflineSchema.optional(),
  prefixCacheReset: obj({ reset: bool, via: str.optional(), reason: str.optional() }).optional(),
  requestFiles: obj({ dir: str, requests: num, omitted: num.optional() }).optional(),
  pooled: obj({ measurements: num, rounds: num, metrics: metricsBlock }).optional(),
  verdict: cellVerdict,
}).transform(withCellShare)
