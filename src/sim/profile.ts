/**
 * A sim profile: the speed of one engine/model/hardware combination, as data.
 *
 * JSON fields (kebab-case, like the matrix file):
 * - `name`, `description`, `model` (served model name), `emulates` (engine and version it stands in for),
 *   `source` (the published row it reproduces), optional `max-model-len` (default 262144).
 * - `prefill.tokens-per-s`: prompt tokens processed per second of prefill compute.
 *   `prefill.chunk-tokens`: prompt tokens scheduled per engine step (chunked prefill; FCFS,
 *   a prompt may span steps, several prompts may share one). Default: unlimited.
 * - `decode.step-ms`: duration of one decode step for a batch of b running streams: a number
 *   (flat), `{ "base": ms, "per-seq": ms }` (base + per-seq·(b−1)), or a table `[[b, ms], …]`
 *   interpolated linearly (extended with the end slopes).
 * - `speculative`: `{ "method", "k", "accept": [w0 … wk] }`, weights of accepting exactly
 *   i drafts in a verify step (each step emits 1 + i tokens). Realised in blocks of 20 steps.
 *   Optional `accept-cv`: how much acceptance differs from request to request (a drafter accepts more of
 *   some texts than of others): each request draws a scale of mean 1 and this coefficient of variation,
 *   and a step's accepted drafts are the drawn count times the scale (stochastically rounded, at most k).
 *   Default 0: every request accepts as the weights say.
 * - `jitter-cv`: coefficient of variation of every step duration (seeded, mean 1). Default 0.
 * - `max-batch`: most streams in flight (decode + prefill). Default 256.
 * - `kv-tokens`: optional KV-cache budget in tokens (prompt + generated of the running streams). A waiting
 *   prompt is admitted only while it fits; when decoding grows the running streams past it, the newest is
 *   preempted and re-queued at the front, to be recomputed (prompt + what it generated) — vLLM v1's
 *   recompute preemption (`vllm/v1/core/sched/scheduler.py`), counted as `vllm:num_preemptions_total`.
 *   Unset: no budget (every shipped profile). With a budget the simulator also serves `vllm:kv_cache_usage_perc`.
 * - `power-w`: optional `{ "idle": W, "busy": W }`, the GPU's draw while the engine has nothing to do and while it
 *   runs a step (busy ≥ idle). The simulator then integrates energy in simulated time (`power.ts`) and serves it as
 *   `sim:gpu_energy_joules_total` and the current draw as `sim:gpu_power_watts`; the gate turns them into the
 *   round's GPU record. Unset: no power figures.
 * - `bandwidth`, `model-bytes`, `kv-bytes-per-token`: optional, the box's memory bandwidth (`273GB/s`), the bytes one
 *   decode step reads of the weights (`16.4GB`) and the KV cache bytes a token adds, which the server tells the gate
 *   (`/version`'s `roofline`, scaled by the time scale) for the roofline.
 * - `reproduces`: the published workload and figures, which the tests hold the profile to.
 * - `fault`: optional broken output at unchanged speed: `degenerate` (every token is `'s`, as
 *   broken quantizations stream), `wrong-answers` (probe answers off by a few; other text
 *   unchanged) or `benchmark-garbage` (requests that ignore end-of-sequence, as benchmark requests
 *   do, get another text than their prompt's greedy one: a long-prompt path gone wrong while the
 *   probe's short requests stay right), or `no-prefix-cache` (prefix caching off: every prompt is prefilled
 *   whole, as when an engine's automatic prefix caching breaks; output unchanged), or `drafter-drops-prefix-cache`
 *   (on a profile with `speculative`, a request's cached blocks are dropped when it finishes, so the next turn of a
 *   conversation prefills it all again: an engine re-prefilling every turn of an agent loop with a drafter
 *   configured; without a drafter the profile runs healthy). The sim CLI's `--fault` overrides it.
 *
 * A profile is the speed of a launch on the box it was measured on. How one launch differs from the next, the
 * host from that box and occasional slow periods are the launch's, not the profile's: `speed.ts`, set by the
 * sim CLI's `--launch-cv`, `--box-factor` (or its environment variable) and `--slow-*` flags.
 */
import { z } from 'zod'
import type { PowerDraw } from './power.js'
import { parseSize } from '../core/units.js'

/** Broken output a profile can simulate; the schedule stays the same, only the text changes. */
export const SIM_FAULTS = [
  'degenerate',
  'wrong-answers',
  'benchmark-garbage',
  'no-prefix-cache',
  'drafter-drops-prefix-cache',
] as const
export type SimFault = (typeof SIM_FAULTS)[number]

const positive = z.number().positive()
const stepTable = z.array(z.tuple([z.number().int().positive(), positive])).min(1)

const watts = z.number().nonnegative()
const powerDraw = z
  .strictObject({ idle: watts, busy: watts })
  .refine((w) => w.busy >= w.idle, { message: 'busy must be at least idle', path: ['busy'] })

const schema = z.strictObject({
  name: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'kebab-case'),
  description: z.string().default(''),
  model: z.string().min(1),
  emulates: z.string().default('sim'),
  source: z.string().min(1),
  'max-model-len': z.number().int().positive().default(262144),
  prefill: z.strictObject({ 'tokens-per-s': positive, 'chunk-tokens': z.number().int().positive().optional() }),
  decode: z.strictObject({
    'step-ms': z.union([positive, z.strictObject({ base: positive, 'per-seq': z.number().nonnegative() }), stepTable]),
  }),
  speculative: z
    .strictObject({
      method: z.string().min(1),
      k: z.number().int().min(1),
      accept: z.array(z.number().nonnegative()).min(2),
      'accept-cv': z.number().min(0).max(1).default(0),
    })
    .refine((s) => s.accept.length === s.k + 1, {
      message: 'accept needs k + 1 weights (0..k accepted drafts)',
      path: ['accept'],
    })
    .refine((s) => s.accept.some((w) => w > 0), { message: 'accept weights are all zero', path: ['accept'] })
    .optional(),
  'jitter-cv': z.number().min(0).max(1).default(0),
  'max-batch': z.number().int().positive().default(256),
  'kv-tokens': z.number().int().positive().optional(),
  'power-w': powerDraw.optional(),
  bandwidth: z
    .string()
    .refine((t) => parseSize(t.replace(/\/s$/, '')) !== undefined && t.endsWith('/s'), 'a bandwidth like 273GB/s')
    .optional(),
  'model-bytes': z
    .string()
    .refine((t) => parseSize(t) !== undefined, 'a size like 16.4GB')
    .optional(),
  'kv-bytes-per-token': z.number().int().nonnegative().optional(),
  fault: z.enum(SIM_FAULTS).optional(),
  reproduces: z
    .strictObject({
      'input-tokens': z.number().int().positive(),
      'output-tokens': z.number().int().positive(),
      concurrency: z.number().int().positive(),
      rounds: z.number().int().positive().default(1),
      discard: z.number().int().min(0).default(0),
      expect: z.strictObject({
        'ttft-ms': positive.optional(),
        'tpot-ms': positive.optional(),
        'output-tps': positive.optional(),
        'prefill-tps': positive.optional(),
        'decode-tps': positive.optional(),
      }),
    })
    .optional(),
})

export type ProfileJson = z.input<typeof schema>

export interface Speculative {
  method: string
  k: number
  accept: number[]
  /** Request-to-request spread of acceptance (coefficient of variation of a per-request scale); 0: none. */
  acceptCv: number
}

export interface Reproduces {
  inputTokens: number
  outputTokens: number
  concurrency: number
  rounds: number
  discard: number
  expect: { ttftMs?: number; tpotMs?: number; outputTps?: number; prefillTps?: number; decodeTps?: number }
}

export interface Profile {
  name: string
  description: string
  model: string
  emulates: string
  source: string
  maxModelLen: number
  prefillTps: number
  chunkTokens: number
  /** Decode step duration (ms) for a batch of `b` running streams. */
  stepMs: (b: number) => number
  speculative?: Speculative
  jitterCv: number
  maxBatch: number
  /** KV-cache budget in tokens; absent: unlimited. */
  kvTokens?: number
  /** The simulated GPU's draw; absent: the simulator serves no power or energy. */
  power?: PowerDraw
  /** The box's memory bandwidth (bytes/s) and the bytes a decode step reads, for the roofline; absent: not said. */
  roofline?: { bandwidth: number; modelBytes: number; kvPerToken?: number }
  fault?: SimFault
  reproduces?: Reproduces
}

function stepFunction(spec: z.output<typeof schema>['decode']['step-ms']): (b: number) => number {
  if (typeof spec === 'number') return () => spec
  if (!Array.isArray(spec)) return (b) => spec.base + spec['per-seq'] * (b - 1)
  const table = spec.slice().sort((a, b) => a[0] - b[0])
  if (table.length === 1) return () => table[0][1]
  return (b) => {
    let i = table.findIndex(([size]) => size >= b)
    if (i <= 0) i = i === 0 ? 1 : table.length - 1
    const [b0, ms0] = table[i - 1]
    const [b1, ms1] = table[i]
    return Math.max(0.001, ms0 + ((ms1 - ms0) * (b - b0)) / (b1 - b0))
  }
}

/** Validates profile JSON; `where` names the source in errors (`profile ./x.json: prefill.tokens-per-s: …`). */
export function parseProfile(json: unknown, where: string): Profile {
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    throw new Error(`profile ${where}: ${problems.join('; ')}`)
  }
  const p = parsed.data
  const r = p.reproduces
  return {
    name: p.name,
    description: p.description,
    model: p.model,
    emulates: p.emulates,
    source: p.source,
    maxModelLen: p['max-model-len'],
    prefillTps: p.prefill['tokens-per-s'],
    chunkTokens: p.prefill['chunk-tokens'] ?? Infinity,
    stepMs: stepFunction(p.decode['step-ms']),
    speculative: p.speculative && {
      method: p.speculative.method,
      k: p.speculative.k,
      accept: p.speculative.accept,
      acceptCv: p.speculative['accept-cv'],
    },
    jitterCv: p['jitter-cv'],
    maxBatch: p['max-batch'],
    ...(p['kv-tokens'] !== undefined && { kvTokens: p['kv-tokens'] }),
    ...(p['power-w'] && { power: { idleW: p['power-w'].idle, busyW: p['power-w'].busy } }),
    ...(p.bandwidth &&
      p['model-bytes'] && {
        roofline: {
          bandwidth: parseSize(p.bandwidth.replace(/\/s$/, ''))!,
          modelBytes: parseSize(p['model-bytes'])!,
          ...(p['kv-bytes-per-token'] !== undefined && { kvPerToken: p['kv-bytes-per-token'] }),
        },
      }),
    ...(p.fault && { fault: p.fault }),
    reproduces: r && {
      inputTokens: r['input-tokens'],
      outputTokens: r['output-tokens'],
      concurrency: r.concurrency,
      rounds: r.rounds,
      discard: r.discard,
      expect: {
        ttftMs: r.expect['ttft-ms'],
        tpotMs: r.expect['tpot-ms'],
        outputTps: r.expect['output-tps'],
        prefillTps: r.expect['prefill-tps'],
        decodeTps: r.expect['decode-tps'],
      },
    },
  }
}
