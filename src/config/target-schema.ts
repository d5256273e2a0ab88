/**
 * `targets:` in the matrix file: the keys every target has (engine, url or launch or container, model, matrix,
 * scenarios, gate, paths), the settings it may set for itself, and the engine options, which come from the
 * engine registry and are parsed with the target's own engine's fields.
 */
import { z } from 'zod'
import type { EngineAdapter } from '../engines/types.js'
import { NAME_PATTERN, expected, scalar, show, text, whole } from '../core/fields.js'
import { placeholdersIn } from './placeholders.js'
import { pathGlobs } from './paths.js'
import { containerSchema, stopSchema } from './container-schema.js'
import { gateSchema } from './gate-schema.js'
import { closestName } from './issues.js'
import { SETTING_KEYS, targetSettings } from './settings-schema.js'

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

/** `did you mean vllm? ` for `vLLM` or `vlm`; empty when no engine name is that close, or the value is no string. */
const didYouMean = (input: unknown, names: readonly string[]): string => {
  const close = typeof input === 'string' ? closestName(input, names) : undefined
  return close ? `did you mean ${close}? ` : ''
}

/** The keys a target has whatever its engine, with the engine names `engine` accepts. */
function coreTargetFields(names: readonly [string, ...string[]]) {
  return {
    engine: z.enum(names, {
      error: (issue) =>
        issue.input === undefined
          ? `required (one of ${names.join(', ')})`
          : `unknown engine ${show(issue.input)} (${didYouMean(issue.input, names)}valid: ${names.join(', ')})`,
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

export function targetSchema(engines: readonly EngineAdapter[]) {
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
