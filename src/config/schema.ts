/**
 * The matrix file as a zod schema: the single source of the validation, the parsed types and
 * the published JSON Schema. Engine names and engine-specific keys (with their own zod fields)
 * come from the engine registry, so adding an engine never touches this file.
 */
import { z } from 'zod'
import { ENGINES } from '../engines/registry.js'
import type { EngineAdapter } from '../engines/types.js'
import { formatPercent } from '../core/format.js'
import { isActionCredential } from '../core/redact.js'
import { placeholdersIn } from './placeholders.js'
import { pathGlobs } from './paths.js'
import {
  GATE_STATS,
  GATED_METRICS,
  METRICS,
  isDrop,
  isRelative,
  metricInfo,
  type GatedMetric,
} from '../core/metrics.js'
import {
  ID_PATTERN,
  NAME_PATTERN,
  duration,
  expected,
  memoryFloor,
  minDelta,
  points,
  relative,
  scalar,
  show,
  text,
  whole,
} from '../core/fields.js'
import { GREEDY_PROMPTS, PROBE_DEFAULT_QUESTIONS, PROBE_MAX_QUESTIONS, PROBE_MAX_TOKENS } from '../quality/index.js'
import { DEFAULT_QUALITY_GATE } from '../core/quality.js'
import { OWNED_BODY_FIELDS } from '../core/body-fields.js'
import { containerSchema, stopSchema } from './container-schema.js'
import { PROMPT_KINDS, type SloBounds } from '../core/plan.js'

/** Stable identifier of the published schema (a URN: the file is served from wherever the action lives). */
export const SCHEMA_ID = 'urn:llm-bench-gate:matrix-file:1'

/** Built-in `defaults` as a user would write them. */
export const DEFAULT_SETTINGS = {
  rounds: 3,
  discard: 1,
  'ready-timeout': '20m',
  'request-timeout': '10m',
  api: 'completions',
  confirm: 1,
  'memory-floor': '4GiB',
  'drop-caches': false,
  'max-error-share': '10%',
  'pass-env': [],
  'noise-floor': '1.5%',
  'confirm-fresh': false,
  'allow-gpu-processes': [],
  'request-body': {},
  quality: {},
  ab: 'confirm',
  'ab-launches': 2,
  'ab-budget': '1h',
} as const

/**
 * Settings without a fixed built-in value: `max-rounds` defaults to the target's own `rounds`; `ab-setup` is no
 * command unless given.
 */
const DERIVED_SETTINGS = ['max-rounds', 'ab-setup'] as const

/**
 * Upper bounds of the workload fields: past them a value is a typo or an attack, and would exhaust memory
 * (one prompt of 10⁹ tokens), file descriptors (25,000 sockets) or time before any request is sent.
 */
export const LIMITS = {
  inputTokens: 1_048_576,
  outputTokens: 131_072,
  concurrency: 4096,
  requests: 100_000,
  rate: 10_000,
  rounds: 100,
  abSetupChars: 4096,
  confirm: 10,
  probeMaxTokens: 1024,
  probeConcurrency: 64,
  abLaunches: 10,
  sweepPoints: 32,
} as const

/** The gate used when the file has no top-level `gate`: the registry's metrics that have a built-in limit. */
export const DEFAULT_GATE = Object.fromEntries(
  GATED_METRICS.flatMap((m) => (metricInfo(m).defaultGate ? [[m, metricInfo(m).defaultGate]] : [])),
)

/** The shortest `prompts: text` prompt: its opening and instruction take up to about 40 tokens of it. */
export const TEXT_MIN_INPUT_TOKENS = 64

/** Past half the value, a "noise floor" would wave every regression through. */
const MAX_NOISE_FLOOR = 0.5
/** `ab:` values (SPEC §14). */
export const AB_MODES = ['off', 'confirm', 'always'] as const

const API = z.enum(['completions', 'chat'], { error: expected('must be completions or chat') })

/** Past this a `request-body` is not a few engine switches. */
const MAX_REQUEST_BODY_BYTES = 16 * 1024

/** `request-body:` — extra fields for every request (benchmark and probe), never one the measurement owns. */
function requestBodySetting() {
  return (
    z
      // Values are whatever the YAML or JSON file holds (strings, numbers, booleans, null, lists, mappings): JSON already.
      .record(z.string(), z.unknown(), {
        error: expected(
          'must be a mapping of request fields, e.g. { chat_template_kwargs: { enable_thinking: false } }',
        ),
      })
      .superRefine((body, ctx) => {
        for (const key of Object.keys(body)) {
          if ((OWNED_BODY_FIELDS as readonly string[]).includes(key)) {
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `is set by the gate for every request (${OWNED_BODY_FIELDS.join(', ')}) and cannot be overridden`,
            })
          }
        }
        const bytes = Buffer.byteLength(JSON.stringify(body))
        if (bytes > MAX_REQUEST_BODY_BYTES)
          ctx.addIssue({ code: 'custom', message: `is ${bytes} bytes as JSON; at most ${MAX_REQUEST_BODY_BYTES}` })
      })
      .meta({ description: 'Extra fields of every request body (e.g. chat_template_kwargs), never one the gate sets' })
  )
}

/** `quality:` — the output quality probe; `false` skips it for the target. */
function qualitySetting() {
  const probe = z.strictObject({
    questions: whole(1, PROBE_MAX_QUESTIONS)
      .default(PROBE_DEFAULT_QUESTIONS)
      .meta({ description: 'Probe questions with exact answers' }),
    prompts: whole(0, GREEDY_PROMPTS.length)
      .default(GREEDY_PROMPTS.length)
      .meta({ description: 'Greedy prompts whose outputs the baseline keeps' }),
    'max-tokens': whole(1, LIMITS.probeMaxTokens)
      .default(PROBE_MAX_TOKENS)
      .meta({ description: 'max_tokens of each probe question' }),
    api: API.optional().meta({ description: "API the probe uses; default the target's api" }),
    // All of the default probe (40 questions + 12 prompts) in flight at once: one batch on an engine with continuous
    // batching and that many slots; an engine with fewer slots (llama.cpp's `-np`) queues the rest itself.
    concurrency: whole(1, LIMITS.probeConcurrency).default(64).meta({ description: 'Probe requests in flight' }),
  })
  return z
    .union([probe, z.literal(false)], { error: expected('must be a mapping like { questions: 40 } or false') })
    .meta({ description: 'Output quality probe run after readiness; false skips it' })
}

/** `ab`, `ab-launches`, `ab-budget`: the same-box A/B against the PR's base commit (SPEC §14). */
function abSettings() {
  return {
    ab: z.enum(AB_MODES, { error: expected(`must be one of ${AB_MODES.join(', ')}`) }).meta({
      description:
        "Same-box A/B against the PR's base commit: off; confirm (a cell that looks regressed, is inconclusive or new, or whose environment changed); always (every target the PR changed)",
    }),
    'ab-launches': whole(1, LIMITS.abLaunches).meta({
      description: 'Launches per arm of a same-box A/B, alternated base, PR, PR, base',
    }),
    'ab-budget': duration().meta({
      description:
        'Most engine time the base arms of one run may take; past it cells keep their stored-baseline verdict',
    }),
    'ab-setup': z
      .string({ error: expected('must be a shell command (a string)') })
      .max(LIMITS.abSetupChars, { error: `must be at most ${LIMITS.abSetupChars} characters` })
      .meta({
        description:
          "Shell command run in the base commit's worktree before its first base launch, to build or install the base's engine apart from the PR's; empty: none",
      }),
  }
}

function settingsShape() {
  return {
    rounds: whole(1, LIMITS.rounds).meta({ description: 'Measured rounds per cell' }),
    discard: whole(0, LIMITS.rounds - 1).meta({ description: 'Leading rounds left out of the steady state' }),
    'ready-timeout': duration(),
    'request-timeout': duration(),
    api: API,
    confirm: whole(0, LIMITS.confirm).meta({ description: 'Re-measurements of a cell that looks regressed' }),
    'confirm-fresh': z
      .boolean({ error: expected('must be true or false') })
      .meta({ description: 'Relaunch the engine for each re-measurement' }),
    'max-rounds': whole(1, LIMITS.rounds).meta({
      description: 'Most rounds a cell may measure when noise alone keeps it undecided (default: rounds)',
    }),
    'noise-floor': relative({ allowZero: true })
      .refine((f) => f <= MAX_NOISE_FLOOR, {
        error: (issue) => `must be from 0% to 50% (got ${formatPercent(issue.input as number)})`,
      })
      .meta({ description: 'Launch-to-launch spread assumed while the history is short, e.g. 1.5%' }),
    'memory-floor': memoryFloor(),
    'drop-caches': z.boolean({ error: expected('must be true or false') }),
    'max-error-share': relative({ allowZero: true, capPercent: true }).meta({
      description: 'A round whose failed-request share exceeds this makes the cell inconclusive',
    }),
    'pass-env': z
      .array(
        z
          .string({ error: expected('must be a variable name') })
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: expected('must be a variable name (letters, digits and _)') })
          .refine((name) => !isActionCredential(name), {
            error: (issue) => `${show(issue.input)} is the action's own credential and is never passed to an engine`,
          }),
        { error: expected('must be a list of variable names') },
      )
      .meta({ description: 'Secret-looking variables of the runner to pass to the engine on purpose (e.g. HF_TOKEN)' }),
    'allow-gpu-processes': z
      .array(
        z
          .string({ error: expected('must be a process name or glob') })
          .min(1, { error: expected('must not be empty') })
          .max(256, { error: expected('must be at most 256 characters') }),
        {
          error: expected('must be a list of process names or globs'),
        },
      )
      .max(64, { error: expected('must list at most 64 processes') })
      .meta({
        description:
          'GPU processes expected on this host (names or globs, e.g. ollama, /opt/dcgm/**): preflight records them instead of refusing to launch',
      }),
    'request-body': requestBodySetting(),
    quality: qualitySetting(),
    ...abSettings(),
  }
}

type SettingsShape = ReturnType<typeof settingsShape>

type FixedKey = keyof typeof DEFAULT_SETTINGS
type DerivedKey = (typeof DERIVED_SETTINGS)[number]

export const SETTING_KEYS = [...Object.keys(DEFAULT_SETTINGS), ...DERIVED_SETTINGS] as (FixedKey | DerivedKey)[]

/** `defaults:` takes every setting, each with its built-in value (or none, when it derives from another). */
function defaultsSchema() {
  const s = settingsShape()
  const fixed = Object.fromEntries(
    (Object.keys(DEFAULT_SETTINGS) as FixedKey[]).map((key) => [
      key,
      (s[key] as z.ZodType).prefault(DEFAULT_SETTINGS[key]),
    ]),
  )
  const derived = Object.fromEntries(DERIVED_SETTINGS.map((key) => [key, s[key].optional()]))
  return z.strictObject({ ...fixed, ...derived } as { [K in FixedKey]: z.ZodPrefault<SettingsShape[K]> } & {
    [K in DerivedKey]: z.ZodOptional<SettingsShape[K]>
  })
}

/** A target may set any setting directly; the target's value wins over `defaults`. */
function targetSettings() {
  const s = settingsShape()
  const fields = Object.fromEntries(SETTING_KEYS.map((key) => [key, s[key].optional()]))
  return fields as { [K in keyof SettingsShape]: z.ZodOptional<SettingsShape[K]> }
}

/** The unit `min-delta` is written in: a duration for time figures, a plain number otherwise. */
function gateMetricSchema(metric: GatedMetric, top: boolean) {
  if (isDrop(metric)) {
    const maxDrop = points().meta({
      description: `Points ${METRICS[metric].label} may fall below the baseline, beyond the noise, before the cell fails`,
    })
    return z.strictObject({ 'max-drop': top ? maxDrop : maxDrop.optional() })
  }
  if (!isRelative(metric)) {
    const max = relative({ allowZero: true, capPercent: true }).meta({
      description: 'Share above which the cell fails',
    })
    return z.strictObject({ max: top ? max : max.optional() })
  }
  const maxRegression = relative().meta({ description: 'Relative worsening that may count as a regression' })
  return z.strictObject({
    'max-regression': top ? maxRegression : maxRegression.optional(),
    'min-delta': minDelta(METRICS[metric].unit).optional(),
    stat: z.enum(GATE_STATS, { error: expected(`must be one of ${GATE_STATS.join(', ')}`) }).optional(),
  })
}

/** `gate.quality`: every field optional (the built-in value, or the top-level one for a target); false switches it off. */
function qualityGateSchema() {
  const d = DEFAULT_QUALITY_GATE
  return z
    .union(
      [
        z.strictObject({
          'max-accuracy-drop': z
            .number({ error: expected('must be a number of points from 0 to 100') })
            .min(0, { error: expected('must be a number of points from 0 to 100') })
            .max(100, { error: expected('must be a number of points from 0 to 100') })
            .meta({ description: `Largest accuracy drop in points that passes (default ${d.maxAccuracyDrop * 100})` })
            .optional(),
          'min-agreement': z
            .number({ error: expected('must be a number from 0 to 1') })
            .min(0, { error: expected('must be a number from 0 to 1') })
            .max(1, { error: expected('must be a number from 0 to 1') })
            .meta({
              description: `Lowest agreement with the baseline's greedy outputs that passes (default ${d.minAgreement})`,
            })
            .optional(),
          degenerate: z
            .enum(['fail', 'warn', 'off'], { error: expected('must be fail, warn or off') })
            .meta({ description: `What a rise of degenerate output does (default ${d.degenerate})` })
            .optional(),
        }),
        z.literal(false),
      ],
      { error: expected('must be a mapping like { max-accuracy-drop: 5 } or false') },
    )
    .meta({ description: 'Output quality gate against the same cell baseline; false switches it off' })
    .optional()
}

/** Top-level gates name every field they use; a target's gate may override single fields. */
function gateSchema(level: 'top' | 'target') {
  const entry = (metric: GatedMetric) =>
    z
      .union([gateMetricSchema(metric, level === 'top'), z.literal(false)], {
        error: expected(
          `must be a mapping like ${isRelative(metric) ? '{ max-regression: 5% }' : isDrop(metric) ? '{ max-drop: 5 }' : '{ max: 1% }'} or false`,
        ),
      })
      .meta({ description: `${METRICS[metric].label}; false switches the metric off` })
      .optional()
  const metrics = Object.fromEntries(GATED_METRICS.map((m) => [m, entry(m)])) as Record<
    GatedMetric,
    ReturnType<typeof entry>
  >
  return z.strictObject({ ...metrics, quality: qualityGateSchema() })
}

/**
 * `concurrency`: requests in flight, or a list of them, a sweep (SPEC §16) that expands into one cell per value
 * (`<scenario>@c<N>`). Each value is checked like a single one, and a value listed twice would make two cells of
 * one id.
 */
function concurrencyField() {
  const one = whole(1, LIMITS.concurrency)
  const sweep = z
    .array(one, { error: expected('must be a list of whole numbers') })
    .min(1, { error: 'must list at least one value (or give one number)' })
    .max(LIMITS.sweepPoints, {
      error: (issue) => `a sweep has at most ${LIMITS.sweepPoints} values (got ${(issue.input as unknown[]).length})`,
    })
    .superRefine((values, ctx) => {
      values.forEach((v, i) => {
        if (values.indexOf(v) !== i)
          ctx.addIssue({ code: 'custom', path: [i], message: `${v} is listed twice (each value is one cell)` })
      })
    })
  return z
    .union([one, sweep], {
      error: expected(`must be a whole number from 1 to ${LIMITS.concurrency}, or a list of them (a sweep)`),
    })
    .meta({
      description:
        'Requests in flight (closed loop); default 1. A list is a sweep: one cell per value, scenario id <scenario>@c<N>',
    })
}

function scenarioFields() {
  return z.strictObject({
    'input-tokens': whole(1, LIMITS.inputTokens).meta({
      description: 'Prompt length in tokens as the server counts them',
    }),
    'output-tokens': whole(1, LIMITS.outputTokens).meta({ description: 'max_tokens of every request' }),
    concurrency: concurrencyField().optional(),
    requests: whole(1, LIMITS.requests).meta({ description: 'Requests per round; default = concurrency' }).optional(),
    rate: z
      .number({ error: expected(`must be a number of requests/s from 0 to ${LIMITS.rate}`) })
      .positive({ error: expected(`must be a number of requests/s from 0 to ${LIMITS.rate}`) })
      .max(LIMITS.rate, { error: expected(`must be a number of requests/s from 0 to ${LIMITS.rate}`) })
      .meta({ description: 'Open-loop arrival rate in requests/s (Poisson), instead of concurrency' })
      .optional(),
    'prefix-tokens': whole(1, LIMITS.inputTokens)
      .meta({
        description:
          'Tokens every request of a round shares at its start (a system prompt, a RAG template), then its unique part; the whole prompt is still input-tokens',
      })
      .optional(),
    slo: sloSchema().optional(),
    prompts: z
      .enum(PROMPT_KINDS, { error: expected(`must be ${PROMPT_KINDS.join(' or ')}`) })
      .meta({
        description:
          'synthetic: a word list (default); text: an instruction and a passage of generated prose per request, for speculative decoding',
      })
      .optional(),
  })
}

type ScenarioFields = z.output<ReturnType<typeof scenarioFields>>

function scenarioSchema() {
  return scenarioFields().superRefine((s, ctx) => {
    loadChecks(s, ctx)
    shapeChecks(s, ctx)
  })
}

/** Concurrency, a sweep's values, rate and requests against each other. */
function loadChecks(s: ScenarioFields, ctx: z.RefinementCtx): void {
  const sweep = Array.isArray(s.concurrency) ? s.concurrency : undefined
  if (s.rate !== undefined && s.concurrency !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['rate'],
      message: sweep
        ? 'a concurrency sweep is closed loop: give either rate (open loop) or a concurrency list, not both'
        : 'give either rate (open loop) or concurrency (closed loop), not both',
    })
  }
  if (s.rate !== undefined && s.requests === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['requests'],
      message: 'required with rate (how many requests a round sends)',
    })
  }
  const requests = s.requests
  const values = typeof s.concurrency === 'number' ? [s.concurrency] : (s.concurrency ?? [])
  const unreached = values.filter((c) => requests !== undefined && requests < c)
  if (unreached.length && sweep) {
    ctx.addIssue({
      code: 'custom',
      path: ['requests'],
      message: `${requests} is less than concurrency ${unreached.join(', ')} of the sweep ${sweep.join(', ')}: those points would never reach their concurrency (without requests, each point sends its own concurrency)`,
    })
  } else if (unreached.length) {
    ctx.addIssue({
      code: 'custom',
      path: ['requests'],
      message: `${requests} is less than concurrency ${unreached[0]}: the concurrency would never be reached`,
    })
  }
}

/** The shared prefix within the prompt, and SLO bounds the workload can meet at all. */
function shapeChecks(s: ScenarioFields, ctx: z.RefinementCtx): void {
  if (s['prefix-tokens'] !== undefined && s['prefix-tokens'] >= s['input-tokens']) {
    ctx.addIssue({
      code: 'custom',
      path: ['prefix-tokens'],
      message: `${s['prefix-tokens']} is not less than input-tokens ${s['input-tokens']}: every request needs a unique part after the shared prefix`,
    })
  }
  if (s.prompts === 'text' && s['input-tokens'] < TEXT_MIN_INPUT_TOKENS) {
    ctx.addIssue({
      code: 'custom',
      path: ['input-tokens'],
      message: `${s['input-tokens']} is too short for prompts: text; at least ${TEXT_MIN_INPUT_TOKENS} (an instruction and the start of a passage)`,
    })
  }
  if (s['prefix-tokens'] !== undefined && s.prompts === 'text') {
    ctx.addIssue({
      code: 'custom',
      path: ['prefix-tokens'],
      message:
        'a shared prefix goes with prompts: synthetic (text prompts are fitted one by one, each unique from its start)',
    })
  }
  if (s.slo?.tpotMs !== undefined && s['output-tokens'] === 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['slo', 'tpot'],
      message: 'has no effect with output-tokens 1: a request of one token has no time per output token',
    })
  }
}

/** `slo:` — latency targets; a request meeting every bound given is good (goodput). */
function sloSchema() {
  const bound = (what: string) => duration().meta({ description: `Largest ${what} of a good request, e.g. 2s` })
  return z
    .strictObject(
      {
        ttft: bound('time to first token').optional(),
        tpot: bound('time per output token after the first').optional(),
        e2e: bound('latency from send to last token').optional(),
      },
      { error: expected('must be a mapping of latency bounds, e.g. { ttft: 2s, tpot: 80ms, e2e: 30s }') },
    )
    .refine((slo) => slo.ttft !== undefined || slo.tpot !== undefined || slo.e2e !== undefined, {
      error: 'must set at least one bound: ttft, tpot or e2e (e.g. { tpot: 80ms })',
      // An unknown key (`ttfb`) is the problem to name, not the bounds it left out.
      when: (payload) => payload.issues.length === 0,
    })
    .transform((slo): SloBounds => ({
      ...(slo.ttft !== undefined && { ttftMs: slo.ttft }),
      ...(slo.tpot !== undefined && { tpotMs: slo.tpot }),
      ...(slo.e2e !== undefined && { e2eMs: slo.e2e }),
    }))
    .meta({
      description:
        'Latency targets: goodput is the share of requests that succeed and meet every bound given (ttft, tpot, e2e)',
    })
}

/** Keys a target has whatever its engine, read from the schema's own fields. */
export const CORE_TARGET_KEYS: readonly string[] = Object.keys(coreTargetFields(['engine']))

/** Every engine-specific key and the engines that declare it. */
export function optionOwners(engines: readonly EngineAdapter[]): Map<string, EngineAdapter[]> {
  const owners = new Map<string, EngineAdapter[]>()
  for (const engine of engines) {
    for (const key of Object.keys(engine.options ?? {})) {
      if (CORE_TARGET_KEYS.includes(key) || (SETTING_KEYS as string[]).includes(key)) {
        throw new Error(`engine ${engine.name}: option key "${key}" collides with a matrix-file key`)
      }
      owners.set(key, [...(owners.get(key) ?? []), engine])
    }
  }
  return owners
}

function published(field: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >
  return rest
}

/**
 * An engine option as the target schema holds it: any value, parsed later by `parseOptions`
 * against the target's own engine, but published (zod merges `.meta` into the JSON Schema) as
 * the declaring engines' own fields, so editors check and describe it.
 */
function optionField(key: string, by: readonly EngineAdapter[]) {
  const fields = by.flatMap((e) => (e.options?.[key] ? [published(e.options[key])] : []))
  const details = [...new Set(fields.flatMap((f) => (typeof f.description === 'string' ? [f.description] : [])))]
  const description = `Engine option (${by.map((e) => e.name).join(', ')})${details.length ? `: ${details.join('; ')}` : ''}`
  const shape = fields.length === 1 ? fields[0] : { anyOf: fields.map(({ description: _, ...rest }) => rest) }
  return z
    .unknown()
    .meta({ ...shape, description })
    .optional()
}

/**
 * The target's engine options parsed with its own engine's fields; a key of another engine is a
 * problem. A string holding placeholders is left as written: expand.ts fills it for each matrix
 * combination and parses it then.
 */
function parseOptions<T extends { engine: string }>(
  target: T,
  engines: readonly EngineAdapter[],
  owners: Map<string, EngineAdapter[]>,
  ctx: z.core.$RefinementCtx<T>,
): T {
  const engine = engines.find((e) => e.name === target.engine)
  const out: Record<string, unknown> = { ...target }
  for (const [key, value] of Object.entries(target)) {
    const by = owners.get(key)
    if (!by || !engine || value === undefined) continue
    const field = engine.options?.[key]
    if (!field) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `not an option of engine ${engine.name} (${key} is for ${by.map((e) => e.name).join(', ')})`,
      })
      continue
    }
    if (typeof value === 'string' && placeholdersIn(value).length > 0) continue
    const parsed = field.safeParse(value)
    if (parsed.success) out[key] = parsed.data
    else
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: 'custom', path: [key, ...issue.path], message: issue.message, input: value })
  }
  return out as T
}

/** The keys a target has whatever its engine, with the engine names `engine` accepts. */
function coreTargetFields(names: readonly [string, ...string[]]) {
  return {
    engine: z.enum(names, {
      error: (issue) =>
        issue.input === undefined
          ? `required (one of ${names.join(', ')})`
          : `unknown engine ${show(issue.input)} (valid: ${names.join(', ')})`,
    }),
    url: z
      .string({ error: expected('must be a URL') })
      .meta({ description: 'Base URL; default http://127.0.0.1:{port}' })
      .optional(),
    port: whole(1, 65535).meta({ description: 'Fixed port; default a free one' }).optional(),
    launch: z
      .string({ error: expected('must be a shell command') })
      .min(1, { error: 'must not be empty' })
      .optional(),
    container: containerSchema().optional(),
    stop: stopSchema().optional(),
    model: text().optional(),
    quant: text().optional(),
    env: z.record(z.string(), scalar).optional(),
    matrix: z
      .record(
        z
          .string()
          .regex(NAME_PATTERN, { error: 'matrix keys must be names like quant or tp (letters, digits, _ and -)' }),
        z
          .array(scalar, { error: expected('must be a list of values') })
          .min(1, { error: 'must list at least one value' }),
      )
      .optional(),
    scenarios: z
      .array(z.string({ error: expected('must be a scenario name') }), {
        error: expected('must be a list of scenario names'),
      })
      .min(1, { error: 'must list at least one scenario (leave the key out for all)' })
      .optional(),
    gate: gateSchema('target').optional(),
    paths: pathGlobs(),
  }
}

function targetSchema(engines: readonly EngineAdapter[]) {
  const names = engines.map((e) => e.name) as [string, ...string[]]
  const owners = optionOwners(engines)
  const options = Object.fromEntries([...owners].map(([key, by]) => [key, optionField(key, by)]))
  return (
    z
      .strictObject({
        ...coreTargetFields(names),
        ...targetSettings(),
      })
      // The engine options are checked by parseOptions; `{}` keeps them out of the inferred target type.
      // eslint-disable-next-line @typescript-eslint/no-empty-object-type
      .extend(options as {})
      .superRefine((target, ctx) => {
        if (target.launch !== undefined && target.container !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['container'],
            message: 'give either launch (a command) or container (an image the action runs), not both',
          })
        }
      })
      .transform((target, ctx) => parseOptions(target, engines, owners, ctx))
  )
}

export function buildMatrixSchema(engines: readonly EngineAdapter[] = ENGINES) {
  const shape = {
    $schema: z.string().optional(),
    version: z.literal(1, { error: expected('must be 1') }),
    hardware: z
      .string()
      .regex(ID_PATTERN, { error: expected('must be a key like nvidia-gb10 (letters, digits, ., _ and -)') })
      .meta({ description: 'Baseline key; overrides detection' })
      .optional(),
    defaults: defaultsSchema().prefault({}),
    gate: gateSchema('top').meta({ description: 'Default: decode 5%, ttft 10% and 50ms on the mean' }).optional(),
    scenarios: z.record(z.string(), scenarioSchema(), { error: expected('must map scenario names to workloads') }),
    targets: z.record(z.string(), targetSchema(engines), { error: expected('must map target names to servers') }),
  }
  return z
    .strictObject(shape, { error: expected('must be a mapping with version, scenarios and targets') })
    .meta({ title: 'llm-bench-gate matrix file' })
}

export type MatrixSchema = ReturnType<typeof buildMatrixSchema>
export type MatrixFile = z.output<MatrixSchema>
export type TargetInput = MatrixFile['targets'][string]
export type ScenarioInput = MatrixFile['scenarios'][string]
export type GateInput = NonNullable<MatrixFile['gate']>
export type Settings = MatrixFile['defaults']

let cached: MatrixSchema | undefined

/** Built on first use: the registry's adapters may still be initialising while modules load. */
export function matrixSchema(engines?: readonly EngineAdapter[]): MatrixSchema {
  if (engines) return buildMatrixSchema(engines)
  cached ??= buildMatrixSchema(ENGINES)
  return cached
}

/** The JSON Schema editors use for autocompletion; generated, never hand-edited. */
export function matrixJsonSchema(engines?: readonly EngineAdapter[]): Record<string, unknown> {
  const generated = z.toJSONSchema(matrixSchema(engines), { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >
  const { $schema, ...rest } = generated
  return { $schema, $id: SCHEMA_ID, title: 'llm-bench-gate matrix file', ...rest }
}

/** The built-in gate in parsed form (the file's `gate` replaces it when present). */
export function defaultGate(): GateInput {
  return gateSchema('top').parse(DEFAULT_GATE)
}

/**
 * The gate a file's targets start from. A file's own `gate:` replaces the built-in limits of the speed
 * metrics, but a ceiling with a built-in limit (failed requests) is a health check, not a speed target: it
 * stays at its built-in value unless the file sets it or switches it off (`failed-requests: false`), so
 * writing `gate: { decode: … }` never drops it silently. So does goodput's: a scenario's `slo` asks for it.
 */
export function topGate(file: GateInput | undefined): GateInput {
  const builtIn = defaultGate()
  if (!file) return builtIn
  const kept = GATED_METRICS.filter((m) => !isRelative(m) && file[m] === undefined && builtIn[m] !== undefined)
  return { ...file, ...Object.fromEntries(kept.map((m) => [m, builtIn[m]])) }
}
