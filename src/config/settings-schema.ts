/**
 * The settings of the matrix file: what `defaults:` holds, each with its built-in value, and what a target may
 * set for itself (rounds, timeouts, the quality probe, the same-box A/B, request fields, …).
 */
import { z } from 'zod'
import { formatPercent } from '../core/format.js'
import { isActionCredential } from '../core/redact.js'
import { duration, expected, memoryFloor, relative, show, whole } from '../core/fields.js'
import { GREEDY_PROMPTS, PROBE_DEFAULT_QUESTIONS, PROBE_MAX_QUESTIONS, PROBE_MAX_TOKENS } from '../quality/index.js'
import { OWNED_BODY_FIELDS } from '../core/body-fields.js'
import { LIMITS } from './field-limits.js'
import { rooflineSettings } from './roofline-settings.js'

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
  'creep-window': 20,
  bisect: 'off',
  'bisect-budget': '4h',
} as const

/**
 * Settings without a fixed built-in value: `max-rounds` defaults to the target's own `rounds`; `ab-max-launches`
 * to six launches per arm or `ab-launches` when that is more; `ab-setup` is no command unless
 * given; `bandwidth` and `model-bytes` are found on the box and in the model's files unless given.
 */
const DERIVED_SETTINGS = ['max-rounds', 'ab-max-launches', 'ab-setup', 'bandwidth', 'model-bytes'] as const

/** Past half the value, a "noise floor" would wave every regression through. */
const MAX_NOISE_FLOOR = 0.5
/** `bisect:` values (docs/bisect.md): after a default-branch run alerts, bisect in the same job or not. */
export const BISECT_MODES = ['off', 'auto'] as const
/** `ab:` values (docs/same-box.md, "When it runs"). */
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

/** `ab`, `ab-launches`, `ab-budget`: the same-box A/B against the PR's base commit (docs/same-box.md). */
function abSettings() {
  return {
    ab: z.enum(AB_MODES, { error: expected(`must be one of ${AB_MODES.join(', ')}`) }).meta({
      description:
        "Same-box A/B against the PR's base commit: off; confirm (a cell that looks regressed, is inconclusive or new, or whose environment changed); always (every target the PR changed)",
    }),
    'ab-launches': whole(1, LIMITS.abLaunches).meta({
      description: 'Launches per arm a same-box A/B runs at least, alternated base, PR, PR, base',
    }),
    'ab-max-launches': whole(1, LIMITS.abLaunches).meta({
      description:
        'Launches per arm a same-box A/B runs at most: past ab-launches, one launch per arm more at a time while the sequential test is undecided (default 6, or ab-launches when more)',
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

/** `creep-window`, `bisect`, `bisect-budget`: finding the commit a regression on the default branch came with (docs/bisect.md). */
function culpritSettings() {
  return {
    'creep-window': whole(3, LIMITS.creepWindow).meta({
      description:
        'Default-branch runs a creep (merges each within the limit that add up past it) is looked for over, when no level shift one merge made is newer',
    }),
    bisect: z.enum(BISECT_MODES, { error: expected(`must be one of ${BISECT_MODES.join(', ')}`) }).meta({
      description:
        'auto: after a default-branch run alerts (a regression or creep), bisect to the commit in the same job, within bisect-budget',
    }),
    'bisect-budget': duration().meta({
      description: 'Most engine time one bisection may take; past it the narrowed range is the answer',
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
    ...culpritSettings(),
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
    ...rooflineSettings(),
  }
}

type SettingsShape = ReturnType<typeof settingsShape>

type FixedKey = keyof typeof DEFAULT_SETTINGS
type DerivedKey = (typeof DERIVED_SETTINGS)[number]

export const SETTING_KEYS = [...Object.keys(DEFAULT_SETTINGS), ...DERIVED_SETTINGS] as (FixedKey | DerivedKey)[]

/** `defaults:` takes every setting, each with its built-in value (or none, when it derives from another). */
export function defaultsSchema() {
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
export function targetSettings() {
  const s = settingsShape()
  const fields = Object.fromEntries(SETTING_KEYS.map((key) => [key, s[key].optional()]))
  return fields as { [K in keyof SettingsShape]: z.ZodOptional<SettingsShape[K]> }
}
