/**
 * The matrix file (the `config` input: targets, scenarios, defaults and gate; its keys are
 * the zod schema in schema.ts): read, validate, expand, select. Nothing here launches anything.
 */
import { resolve } from 'node:path'
import type { EngineAdapter } from '../engines/types.js'
import { buildPlan } from './build.js'
import { readSource } from './load.js'
import type { Plan } from '../core/plan.js'

export { buildPlan, type BuildOptions } from './build.js'
export { formatPlan } from './plan-text.js'
export { matchesOnly, shardOf } from './select.js'
export { definition, matchesPaths, repoPath, selectChanged, type Selected } from './paths.js'
export { formatOf, parseSource } from './load.js'
export { fillPort, fillRuntime, type RuntimeValues } from './placeholders.js'
export { matrixJsonSchema } from './schema.js'

export interface LoadOptions {
  /** Comma-separated globs over cell ids (`only` input). */
  only?: string
  /** `i/n` (`shard` input). */
  shard?: string
  /** Directory the config path is resolved against (default process.cwd()). */
  cwd?: string
  /** Engine adapters to validate against (default: the registry); tests pass their own. */
  engines?: readonly EngineAdapter[]
  /** The directory every target's launch runs in (TargetPlan.workdir): the base commit's worktree for an A/B. */
  workdir?: string
}

/** Read, parse (YAML or JSON), validate and expand the matrix file. Throws ConfigError listing every problem. */
export async function loadPlan(configPath: string, options: LoadOptions = {}): Promise<Plan> {
  const resolvedPath = resolve(options.cwd ?? process.cwd(), configPath)
  const source = await readSource(configPath, resolvedPath)
  return buildPlan(source.data, { ...options, configPath, resolvedPath, locate: source.locate })
}
