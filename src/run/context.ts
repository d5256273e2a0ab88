/** Where and why this run happens, as plain data (no github.context below the runner). */
import type { Mode } from '../config/inputs.js'
import type { RepoRef } from '../core/github-port.js'

export interface RunContext {
  event: string
  sha: string
  ref: string
  runUrl: string
  repository?: RepoRef
  serverUrl?: string
  /** Default branch name from the event payload, when known. */
  defaultBranch?: string
  /** PR number on pull_request events. */
  prNumber?: number
  /** The PR's base commit on pull_request events (the event payload's `pull_request.base.sha`). */
  baseSha?: string
  /** The PR's head repository (`owner/name`) when it is not this repository: a pull request from a fork. */
  fork?: string
  /**
   * The PR carries the `benchmark-accept` label: a maintainer accepts its regressions on purpose. `by` is the
   * login that added the label when this very event is that labelling (the event payload says who).
   */
  acceptance?: { by?: string }
}

/** The repository's web address (`https://github.com/o/r`): commits and pull requests link there; none without both. */
export function repositoryUrl(context: Pick<RunContext, 'repository' | 'serverUrl'>): string | undefined {
  const { repository, serverUrl } = context
  return repository && serverUrl ? `${serverUrl}/${repository.owner}/${repository.repo}` : undefined
}

/** What a run does once `auto` is resolved. */
export interface Behaviour {
  name: Exclude<Mode, 'auto'>
  /** Launch and measure (false for `merge`, which reads shard results). */
  measure: boolean
  /** Load a baseline and judge cells. */
  compare: boolean
  /** Write the PR comment (PR events only). */
  comment: boolean
  /** Write the store when the run is healthy. */
  writeBaseline: boolean
}

const PR_EVENTS = new Set(['pull_request', 'pull_request_target'])

/**
 * Whether the run is on the default branch. The event payload names it (`repository.default_branch`), except
 * on `schedule`, whose payload has no repository; a scheduled run is on the default branch by definition
 * (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#schedule:
 * GITHUB_REF is the default branch; github/codeql-action#1211 relies on the same). Elsewhere, `main`.
 */
export function isDefaultBranch(context: RunContext): boolean {
  if (context.defaultBranch === undefined && context.event === 'schedule') return context.ref.startsWith('refs/heads/')
  return context.ref === `refs/heads/${defaultBranchName(context)}`
}

const defaultBranchName = (context: RunContext): string => context.defaultBranch ?? 'main'

/**
 * Why a run that would write the baseline must not start, if it must not. The data branch holds the default
 * branch's baseline and history: `auto` and `merge` write it only on the default branch, and an explicit
 * `update-baseline` from any other ref (a feature branch, a PR, a tag) would put that ref's figures into
 * main's history, so it is refused. So is a write with nowhere to go (no token or repository): the run's
 * purpose was the write, and without it every later PR would pass as "new". `baseline-file` is read-only
 * by design: there the write is skipped, not refused. Both are known before anything is launched.
 */
export function baselineWriteRefusal(
  behaviour: Behaviour,
  context: RunContext,
  store: 'branch' | 'file' | undefined,
): string | undefined {
  if (!behaviour.writeBaseline || store === 'file') return undefined
  if (!isDefaultBranch(context))
    return (
      `mode ${behaviour.name} writes the baseline and history of the default branch (${defaultBranchName(context)}), ` +
      `but this run is on ${context.ref || 'no ref'}: refused, nothing was launched or written ` +
      '(run it on the default branch; elsewhere use mode compare or auto)'
    )
  if (!store)
    return (
      `mode ${behaviour.name} writes the baseline to the data branch, but there is no GitHub token or repository ` +
      'to write it with: refused, nothing was launched (pass github-token with contents: write)'
    )
  return undefined
}

/**
 * The effective behaviour of a mode for this event. `auto` is `update-baseline` on a push or
 * schedule to the default branch, else `compare` (with a PR comment on pull_request events;
 * workflow_dispatch and anything else measure and compare without writing). `merge` is `auto`
 * without launching: it reads the shards' results instead.
 */
export function resolveBehaviour(mode: Mode, context: RunContext): Behaviour {
  const pr = PR_EVENTS.has(context.event) && context.prNumber !== undefined
  const onDefault = (context.event === 'push' || context.event === 'schedule') && isDefaultBranch(context)
  switch (mode) {
    case 'compare':
      return { name: 'compare', measure: true, compare: true, comment: pr, writeBaseline: false }
    case 'update-baseline':
      return { name: 'update-baseline', measure: true, compare: true, comment: false, writeBaseline: true }
    case 'run':
      return { name: 'run', measure: true, compare: false, comment: false, writeBaseline: false }
    case 'merge': {
      const inner = resolveBehaviour('auto', context)
      return { ...inner, name: 'merge', measure: false }
    }
    case 'bisect':
      // Measures probes of other commits, judged against each other: no baseline, no comment, no write.
      return { name: 'bisect', measure: true, compare: false, comment: false, writeBaseline: false }
    case 'auto':
      if (onDefault) return resolveBehaviour('update-baseline', context)
      // pull_request → compare with a comment; workflow_dispatch and anything else → run + compare, no write.
      return resolveBehaviour('compare', context)
  }
}
