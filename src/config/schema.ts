/**
 * The matrix file as a zod schema: the single source of the validation, the parsed types and
 * the published JSON Schema. Engine names and engine-specific keys (with their own zod fields)
 * come from the engine registry, so adding an engine never touches this file. Its parts:
 * settings-schema.ts (`defaults:`), gate-schema.ts (`gate:`), scenario-schema.ts (`scenarios:`) and
 * target-schema.ts (`targets:`).
 */
import { z } from 'zod'
import { ENGINES } from '../engines/registry.js'
import type { EngineAdapter } from '../engines/types.js'
import { ID_PATTERN, expected } from '../core/fields.js'
import { gateSchema } from './gate-schema.js'
import { scenarioSchema } from './scenario-schema.js'
import { defaultsSchema } from './settings-schema.js'
import { targetSchema } from './target-schema.js'

/** Stable identifier of the published schema (a URN: the file is served from wherever the action lives). */
export const SCHEMA_ID = 'urn:llm-bench-gate:matrix-file:1'

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
