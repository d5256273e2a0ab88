/**
 * Path-aware selection (`select: changed`): a target's `paths` are globs of repository files it depends on;
 * on a pull request only the targets a changed file matches, or whose definition in the matrix file changed,
 * are run. Pure: the changed files and the base revision's plan come from the caller.
 */
import { z } from 'zod'
import { show } from '../core/fields.js'
import type { TargetPlan } from '../core/plan.js'
import { globMatcher } from './select.js'

const PATHS_HINT = 'a glob of repository files relative to the repository root, like scripts/sglang.sh or models/**'

/** Why a path is no glob of repository files, or undefined when it is one. */
function pathProblem(path: string): string | undefined {
  if (path.trim() === '') return 'must not be empty'
  if (path !== path.trim()) return `must not start or end with spaces (got ${show(path)})`
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path))
    return `must be relative to the repository root (got ${show(path)})`
  if (path.includes('\\')) return `uses / between directories, never \\ (got ${show(path)})`
  if (path.split('/').some((s) => s === '..' || s === '.' || s === ''))
    return `must not contain ., .. or empty segments (got ${show(path)})`
  if (/[{}[\]!]/.test(path))
    return `supports *, ** and ? only; list alternatives as separate entries (got ${show(path)})`
  return undefined
}

/** `paths:` of a target: a non-empty list of globs of repository files. */
export function pathGlobs() {
  const glob = z
    .string({
      error: (issue) => (issue.input === undefined ? 'required' : `must be ${PATHS_HINT} (got ${show(issue.input)})`),
    })
    .superRefine((path, ctx) => {
      const problem = pathProblem(path)
      if (problem) ctx.addIssue({ code: 'custom', message: problem, input: path })
    })
  return z
    .array(glob, {
      error: (issue) => (issue.input === undefined ? 'required' : `must be a list of globs (got ${show(issue.input)})`),
    })
    .min(1, { error: 'must list at least one glob (leave the key out to always run the target)' })
    .meta({
      description:
        'Globs of repository files the target depends on; with select: changed, a PR runs the target only when one of them changed',
    })
    .optional()
}

/** A repository path as the changed-files list spells it, from a path relative to the repository root. */
export function repoPath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '')
}

export function matchesPaths(globs: readonly string[], file: string): boolean {
  return globs.some((glob) => globMatcher(glob)(file))
}

/**
 * What a target's cells are compared on to tell whether its definition changed: everything but the key it came
 * from and the directory its launch runs in.
 */
export function definition(target: TargetPlan, scenarios = target.scenarios): string {
  const { sourceKey: _key, scenarios: _all, workdir: _dir, ...rest } = target
  return JSON.stringify({ ...rest, scenarios })
}

export interface Selected {
  run: TargetPlan[]
  skipped: TargetPlan[]
  /** Per target that runs, why (`paths changed: scripts/sglang.sh`). */
  reasons: Record<string, string>
}

export interface SelectInput {
  targets: readonly TargetPlan[]
  /** Files the PR changes, repository paths. */
  changed: readonly string[]
  /** The matrix file's repository path. */
  configFile: string
  /**
   * The matrix file at the PR's base: its targets, or undefined when it cannot be read (every target then runs
   * when the PR changes the file).
   */
  base?: readonly TargetPlan[]
}

/**
 * Targets to run and to skip. A target runs when it has no `paths`, when a changed file matches one of its
 * globs, or when the PR changes the matrix file and the target's expanded definition (settings, gate,
 * launch, its selected scenarios, …) differs from the base's, or the base has no such target.
 */
export function selectChanged(input: SelectInput): Selected {
  const { targets, changed, configFile, base } = input
  const configChanged = changed.includes(configFile)
  const before = new Map((base ?? []).map((t) => [t.id, t]))
  const run: TargetPlan[] = []
  const skipped: TargetPlan[] = []
  const reasons: Record<string, string> = {}
  for (const target of targets) {
    const reason = runReason(target, changed, configChanged ? { base, before } : undefined)
    if (reason === undefined) skipped.push(target)
    else {
      run.push(target)
      reasons[target.id] = reason
    }
  }
  return { run, skipped, reasons }
}

const SHOWN_FILES = 3

function runReason(
  target: TargetPlan,
  changed: readonly string[],
  config: { base?: readonly TargetPlan[]; before: Map<string, TargetPlan> } | undefined,
): string | undefined {
  if (!target.paths) return 'no paths: always runs'
  if (config && !config.base) return 'the matrix file changed and its base revision could not be read'
  if (config) {
    const old = config.before.get(target.id)
    if (!old) return 'new in the matrix file'
    // Only the scenarios this run selected are compared: the base's other ones are not this run's business.
    const oldScenarios = target.scenarios.map((s) => old.scenarios.find((o) => o.id === s.id))
    if (definition(target) !== definition(old, oldScenarios as TargetPlan['scenarios']))
      return 'its definition in the matrix file changed'
  }
  const hits = changed.filter((file) => matchesPaths(target.paths!, file))
  if (!hits.length) return undefined
  const more = hits.length > SHOWN_FILES ? ` and ${hits.length - SHOWN_FILES} more` : ''
  return `paths changed: ${hits.slice(0, SHOWN_FILES).join(', ')}${more}`
}
