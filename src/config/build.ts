/**
 * Parsed data → Plan. Validation and expansion both run even when the other finds problems, so
 * one pass lists everything wrong with the file; only then is anything thrown.
 */
import { z } from 'zod'
import { ENGINES } from '../engines/registry.js'
import type { EngineAdapter } from '../engines/types.js'
import { ConfigError } from '../core/errors.js'
import { expandTargets, type ExpandInput } from './expand.js'
import { Problems, zodProblems, type Locate, type Path } from './issues.js'
import type { CellPlan, Plan } from '../core/plan.js'
import { topGate } from './gate-schema.js'
import { matrixSchema, type MatrixSchema } from './schema.js'
import { applyOnly, applyShard, parseShard } from './select.js'

export interface BuildOptions {
  configPath: string
  resolvedPath: string
  only?: string
  shard?: string
  /** Engine adapters to validate against (default: the registry). */
  engines?: readonly EngineAdapter[]
  locate?: Locate
  /** The directory every target's launch runs in (TargetPlan.workdir); absent: the run's working directory. */
  workdir?: string
}

export function buildPlan(data: unknown, options: BuildOptions): Plan {
  const problems = new Problems()
  reservedKeys(data, [], problems)
  const schema = matrixSchema(options.engines)
  const parsed = schema.safeParse(data, { reportInput: true })
  if (!parsed.success) problems.addAll(zodProblems(parsed.error.issues, schema))
  const raw = isRecord(data) ? data : {}
  const parts = parsed.success ? parsed.data : salvage(raw, schema)
  const scenarioNames = isRecord(raw.scenarios) ? Object.keys(raw.scenarios) : []
  if (isRecord(raw.scenarios) && scenarioNames.length === 0) problems.add(['scenarios'], 'define at least one scenario')
  if (isRecord(raw.targets) && Object.keys(raw.targets).length === 0)
    problems.add(['targets'], 'define at least one target')

  const all = expandTargets(
    {
      ...parts,
      gate: topGate(parts.gate),
      scenarioNames,
      engines: options.engines ?? ENGINES,
      workdir: options.workdir,
    },
    problems,
  )
  // A pattern "matches nothing" only means something when every target could be expanded.
  const selected = problems.size === 0 ? applyOnly(all, options.only, problems) : all
  const targets = applyShard(selected, parseShard(options.shard, problems))
  if (problems.size > 0) throw new ConfigError(problems.lines(options.locate))

  const cells: CellPlan[] = targets.flatMap((target) =>
    target.scenarios.map((scenario) => ({ id: `${target.id}/${scenario.id}`, target, scenario })),
  )
  const plan: Plan = { configPath: options.configPath, resolvedPath: options.resolvedPath, targets, cells }
  if (parts.hardware !== undefined) plan.hardware = parts.hardware
  return plan
}

type Parts = Omit<ExpandInput, 'gate' | 'scenarioNames' | 'engines'> & { gate?: ExpandInput['gate']; hardware?: string }

/** The valid pieces of an invalid file, so expansion can still report its own problems. */
function salvage(raw: Record<string, unknown>, schema: MatrixSchema): Parts {
  const shape = schema.shape
  const defaults = z.safeParse(shape.defaults, raw.defaults)
  const gate = raw.gate === undefined ? undefined : z.safeParse(shape.gate, raw.gate)
  return {
    defaults: defaults.success ? defaults.data : z.parse(shape.defaults, {}),
    gate: gate?.success ? gate.data : undefined,
    scenarios: validEntries(raw.scenarios, shape.scenarios._zod.def.valueType),
    targets: validEntries(raw.targets, shape.targets._zod.def.valueType),
  } as Parts
}

function validEntries(value: unknown, entry: z.core.$ZodType): Record<string, never> {
  if (!isRecord(value)) return {}
  const valid: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const result = z.safeParse(entry, item)
    if (result.success) valid[key] = result.data
  }
  return valid as Record<string, never>
}

/**
 * Keys that name an object's prototype machinery. A parsed mapping holds them as plain keys, but copying them
 * into an object sets its prototype instead: a target or scenario named so would vanish without a word.
 */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype'])

function reservedKeys(value: unknown, path: Path, problems: Problems): void {
  if (Array.isArray(value)) return value.forEach((item, i) => reservedKeys(item, [...path, i], problems))
  if (!isRecord(value)) return
  for (const key of Object.keys(value)) {
    if (RESERVED.has(key)) problems.add([...path, key], `"${key}" is a reserved name and cannot be used as a key`)
    else reservedKeys(value[key], [...path, key], problems)
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
