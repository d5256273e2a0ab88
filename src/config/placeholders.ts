/**
 * `{name}` placeholders in target names, launch commands, URLs, models, env values and engine
 * options. `${VAR}` is shell syntax and left alone, as is anything that is not a plain name
 * (`{print $1}`, JSON), so launch commands need no escaping.
 */
import type { Path, Problems } from './issues.js'

const PLACEHOLDER = /(?<!\$)\{([A-Za-z_][A-Za-z0-9_-]*)\}/g
export const BUILTIN_PLACEHOLDERS = ['port', 'model', 'quant', 'target', 'run'] as const

export interface Scope {
  /** Names with a value here. */
  values: Record<string, string>
  /** Names known but without a value here, with the reason. */
  missing: Record<string, string>
  /** Names left in the text for later (`{port}` until the launcher picks one). */
  keep: readonly string[]
}

export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1])
}

/** Fill every placeholder; unknown or unavailable ones are reported against `path`. */
export function fill(text: string, scope: Scope, path: Path, problems: Problems): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (scope.keep.includes(name)) return whole
    const value = scope.values[name]
    if (value !== undefined) return value
    const reason = scope.missing[name]
    if (reason !== undefined) problems.add(path, `placeholder {${name}} has no value: ${reason}`)
    else
      problems.add(
        path,
        `unknown placeholder {${name}} (known: ${knownNames(scope)
          .map((n) => `{${n}}`)
          .join(', ')})`,
      )
    return whole
  })
}

function knownNames(scope: Scope): string[] {
  const names = new Set<string>([
    ...BUILTIN_PLACEHOLDERS,
    ...Object.keys(scope.values),
    ...Object.keys(scope.missing),
    ...scope.keep,
  ])
  return [...names]
}

/** The placeholders the plan keeps for the launch, with their values once the run has them. */
export interface RuntimeValues {
  /** The port the launcher picked. */
  port?: number | string
  /**
   * The run's id: what a launch or `stop:` command names with `{run}` (a worker on another box, a lock file)
   * belongs to this run alone, so one run's teardown never stops another's.
   */
  run?: string
}

/** Replace `{port}` and `{run}` with the values given; the others, and `${port}` (shell syntax), stay. */
export function fillRuntime(text: string, values: RuntimeValues): string {
  return text.replace(/(?<!\$)\{(port|run)\}/g, (whole, name: keyof RuntimeValues) =>
    values[name] === undefined ? whole : String(values[name]),
  )
}

/** Replace `{port}` once the launcher has picked a port. */
export function fillPort(text: string, port: number | string): string {
  return fillRuntime(text, { port })
}
