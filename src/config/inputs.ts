/** The action inputs declared in action.yml, parsed once into one typed object. Pure: takes a getter, never the Actions toolkit. */
import { ConfigError } from '../core/errors.js'
import { Problems } from './issues.js'
import { parseShard } from './select.js'

export const MODES = ['auto', 'compare', 'update-baseline', 'run', 'merge', 'bisect'] as const
export type Mode = (typeof MODES)[number]

export const COMMENT_POLICIES = ['always', 'on-regression', 'never'] as const
export type CommentPolicy = (typeof COMMENT_POLICIES)[number]

export const SELECTIONS = ['all', 'changed'] as const
export type Selection = (typeof SELECTIONS)[number]

export interface ActionOptions {
  config: string
  mode: Mode
  only: string
  githubToken: string
  baselineBranch: string
  baselineFile: string
  hardware: string
  comment: CommentPolicy
  failOnRegression: boolean
  failOnError: boolean
  resultsDir: string
  shard: string
  dryRun: boolean
  select: Selection
  /** `mode: bisect`: the commit known good (a revision git resolves). */
  good: string
  /** `mode: bisect`: the commit known bad; empty: the event's commit. */
  bad: string
}

/** Input names as declared in action.yml (fixed public interface). */
export const INPUT = {
  config: 'config',
  mode: 'mode',
  only: 'only',
  githubToken: 'github-token',
  baselineBranch: 'baseline-branch',
  baselineFile: 'baseline-file',
  hardware: 'hardware',
  comment: 'comment',
  failOnRegression: 'fail-on-regression',
  failOnError: 'fail-on-error',
  resultsDir: 'results-dir',
  shard: 'shard',
  dryRun: 'dry-run',
  select: 'select',
  good: 'good',
  bad: 'bad',
} as const satisfies Record<keyof ActionOptions, string>

export const DEFAULTS: ActionOptions = {
  config: '.github/llm-bench.yml',
  mode: 'auto',
  only: '',
  githubToken: '',
  baselineBranch: 'llm-bench-data',
  baselineFile: '',
  hardware: '',
  comment: 'always',
  failOnRegression: true,
  failOnError: true,
  resultsDir: 'llm-bench-results',
  shard: '',
  dryRun: false,
  select: 'all',
  good: '',
  bad: '',
}

const TRUE = new Set(['true', 'True', 'TRUE'])
const FALSE = new Set(['false', 'False', 'FALSE'])

/**
 * Reads every input through `get` (which returns '' for an unset input) and validates it.
 * Throws one ConfigError naming each bad input.
 */
export function parseInputs(get: (name: string) => string): ActionOptions {
  const problems: string[] = []
  const text = (key: keyof typeof INPUT): string => get(INPUT[key]).trim() || String(DEFAULTS[key])
  const oneOf = <T extends string>(key: keyof typeof INPUT, allowed: readonly T[]): T => {
    const value = text(key)
    if ((allowed as readonly string[]).includes(value)) return value as T
    problems.push(`input ${INPUT[key]}: "${value}" is not one of ${allowed.join(', ')}`)
    return DEFAULTS[key] as T
  }
  const bool = (key: keyof typeof INPUT): boolean => {
    const value = text(key)
    if (TRUE.has(value)) return true
    if (FALSE.has(value)) return false
    problems.push(`input ${INPUT[key]}: "${value}" is not a boolean (true or false)`)
    return DEFAULTS[key] as boolean
  }
  const options: ActionOptions = {
    config: text('config'),
    mode: oneOf('mode', MODES),
    only: get(INPUT.only).trim(),
    githubToken: get(INPUT.githubToken).trim(),
    baselineBranch: text('baselineBranch'),
    baselineFile: get(INPUT.baselineFile).trim(),
    hardware: get(INPUT.hardware).trim(),
    comment: oneOf('comment', COMMENT_POLICIES),
    failOnRegression: bool('failOnRegression'),
    failOnError: bool('failOnError'),
    resultsDir: text('resultsDir'),
    shard: get(INPUT.shard).trim(),
    dryRun: bool('dryRun'),
    select: oneOf('select', SELECTIONS),
    good: get(INPUT.good).trim(),
    bad: get(INPUT.bad).trim(),
  }
  problems.push(...bisectProblems(options))
  // The same rule the plan applies (select.ts), so a bad shard is refused before the matrix file is read.
  const shard = new Problems()
  parseShard(options.shard, shard)
  problems.push(...shard.lines().map((line) => `input ${line}`))
  if (options.hardware && !/^[a-z0-9][a-z0-9._-]*$/i.test(options.hardware)) {
    problems.push(`input hardware: "${options.hardware}" may only contain letters, digits, '.', '_' and '-'`)
  }
  if (problems.length) throw new ConfigError(problems)
  return options
}

/**
 * A revision git may be handed as one argument: a commit id, a branch or tag name, `HEAD~3`, `v1.2^`. Never one that
 * starts with '-' (git would read an option), never whitespace, `..` ranges or shell characters.
 */
const REVISION = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/@{}~^-]{1,200}$/

/** `good` and `bad`: required and well-formed for `mode: bisect`, refused for every other mode. */
function bisectProblems(options: ActionOptions): string[] {
  const problems: string[] = []
  for (const key of ['good', 'bad'] as const) {
    const value = options[key]
    if (value && options.mode !== 'bisect')
      problems.push(`input ${INPUT[key]}: only mode bisect reads it (mode is ${options.mode})`)
    else if (value && !REVISION.test(value))
      problems.push(
        `input ${INPUT[key]}: "${value.slice(0, 80)}" is not a commit or revision (e.g. a sha, main~5, v1.2)`,
      )
  }
  if (options.mode === 'bisect' && !options.good)
    problems.push('input good: mode bisect needs the commit known good (a sha, a tag, main~20)')
  return problems
}
