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
  /**
   * The PR carries the `benchmark-accept` label: a maintainer accepts its regressions on purpose. `by` is the
   * login that added the label when this very event is that labelling (the event payload says who).
   */
  acceptance?: { by?: string }
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

export function isDefaultBranch(context: RunContext): boolean {
  const branch = context.defaultBranch ?? 'main'
  return context.ref === `refs/heads/${branch}`
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
    case 'auto':
      if (onDefault) return resolveBehaviour('update-baseline', context)
      // pull_request → compare with a comment; workflow_dispatch and anything else → run + compare, no write.
      return resolveBehaviour('compare', context)
  }
}
