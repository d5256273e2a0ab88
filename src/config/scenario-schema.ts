/**
 * `scenarios:` in the matrix file: one workload each (prompt and output lengths, closed or open loop, a
 * concurrency sweep, a shared prefix, latency targets, prompt kind), and the checks of its fields against each
 * other.
 */
import { z } from 'zod'
import { duration, expected, whole } from '../core/fields.js'
import { PROMPT_KINDS, isGenerated, type SloBounds } from '../core/plan.js'
import { LIMITS } from './field-limits.js'
import { conversationChecks, conversationFields } from './conversation-schema.js'

/** The shortest `prompts: text` prompt: its opening and instruction take up to about 40 tokens of it. */
export const TEXT_MIN_INPUT_TOKENS = 64

/**
 * `concurrency`: requests in flight, or a list of them, a sweep (docs/matrix-file.md, "Concurrency sweeps") that
 * expands into one cell per value (`<scenario>@c<N>`). Each value is checked like a single one, and a value listed
 * twice would make two cells of one id.
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
          'synthetic: a word list (default); text, code or math: an instruction and a passage of generated prose, Python or worked arithmetic per request, for speculative decoding (drafters accept more of code and math)',
      })
      .optional(),
    ...conversationFields(),
  })
}

type ScenarioFields = z.output<ReturnType<typeof scenarioFields>>

export function scenarioSchema() {
  return scenarioFields().superRefine((s, ctx) => {
    loadChecks(s, ctx)
    shapeChecks(s, ctx)
    conversationChecks(s, ctx)
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
  if (isGenerated(s.prompts) && s['input-tokens'] < TEXT_MIN_INPUT_TOKENS) {
    ctx.addIssue({
      code: 'custom',
      path: ['input-tokens'],
      message: `${s['input-tokens']} is too short for prompts: ${s.prompts}; at least ${TEXT_MIN_INPUT_TOKENS} (an instruction and the start of a passage)`,
    })
  }
  if (s['prefix-tokens'] !== undefined && isGenerated(s.prompts)) {
    ctx.addIssue({
      code: 'custom',
      path: ['prefix-tokens'],
      message: `a shared prefix goes with prompts: synthetic (${s.prompts} prompts are fitted one by one, each unique from its start)`,
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
  const bound = (what: string) =>
    duration({ unit: 'ms' }).meta({ description: `Largest ${what} of a good request, e.g. 2s` })
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
