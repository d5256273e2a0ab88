// CONTRACT STUB — the config helper replaces the bodies; keep the exported names and shapes.
import type { Plan } from './plan.js'

export interface LoadOptions {
  /** Comma-separated globs over cell ids (`only` input). */
  only?: string
  /** `i/n` (`shard` input). */
  shard?: string
  /** Directory the config path is resolved against (default process.cwd()). */
  cwd?: string
}

/** Read, parse (YAML or JSON), validate and expand the matrix file. Throws ConfigError listing every problem. */
export async function loadPlan(_configPath: string, _options?: LoadOptions): Promise<Plan> {
  throw new Error('not implemented')
}

/** Replace `{port}` once the launcher has picked a port. */
export function fillPort(text: string, port: number): string {
  return text.replaceAll('{port}', String(port))
}

/** True when a cell id matches the `only` globs (empty = all). */
export function matchesOnly(_id: string, _only: string | undefined): boolean {
  throw new Error('not implemented')
}
