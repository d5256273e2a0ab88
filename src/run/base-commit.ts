/**
 * The PR's base commit on disk, for the same-box A/B: its files in a temporary worktree. `actions/checkout`
 * fetches one commit by default (`fetch-depth: 1`), so the base commit is often missing: then that one commit
 * is fetched from the checkout's own `origin` with the credentials the checkout configured, and nothing else
 * (GitHub serves a reachable commit by its id; git's protocol v2 lets any such want through). Whatever git
 * refuses comes back as one line naming what failed, for the report; nothing here throws for git.
 */
import { isAbsolute, join, resolve } from 'node:path'
import { errorMessage } from '../core/errors.js'
import type { Logger } from '../core/log.js'
import { redact } from '../core/redact.js'
import {
  addWorktree,
  makeWorktreeFolder,
  removeWorktree,
  runGit,
  STALLED_TRANSFER_ENDS,
  WORKTREE_TREE,
  type RunGuard,
  type WorktreeTask,
} from '../server/index.js'

/** One commit over the network: bounded, since a hung remote must not hold the run. */
export const FETCH_TIMEOUT_MS = 2 * 60_000

export interface BaseCheckout {
  sha: string
  /** The worktree: the base commit's files. */
  root: string
  /** Whether the commit had to be fetched. */
  fetched: boolean
  /** Removes the worktree and takes its cleanup task back from the guard; safe to call twice; never throws. */
  remove(): Promise<void>
}

export interface BaseOptions {
  /** The checkout (`repositoryRoot`). */
  repoRoot: string
  sha: string
  /** Where the worktree goes: the runner's `RUNNER_TEMP` in the action (emptied by the runner after each job), else `os.tmpdir()`. */
  tempDir: string
  guard?: RunGuard
  signal?: AbortSignal
  log: Logger
  fetchTimeoutMs?: number
}

export type BaseUnavailable = { unavailable: string }

const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
const CANCELLED = 'the run was cancelled before the base commit was checked out'

/** Whether the repository has that commit. */
async function hasCommit(o: BaseOptions, repo: string, sha: string): Promise<boolean> {
  return (await runGit(['cat-file', '-e', `${sha}^{commit}`], { cwd: repo, signal: o.signal, guard: o.guard })).ok
}

/** The commit in the checkout, fetched when missing; `fetched`, or why it is not there. */
async function ensureCommit(
  o: BaseOptions,
  repo: string,
  sha: string,
): Promise<{ fetched: boolean } | BaseUnavailable> {
  const short = sha.slice(0, 7)
  const inside = await runGit(['rev-parse', '--git-dir'], { cwd: repo, signal: o.signal, guard: o.guard })
  if (o.signal?.aborted) return { unavailable: CANCELLED }
  if (!inside.ok) return { unavailable: `${repo} is not a git checkout (${inside.reason})` }
  if (await hasCommit(o, repo, sha)) return { fetched: false }
  o.log.info(`the base commit ${short} is not in the checkout: fetching it from origin`)
  const args = ['fetch', '--no-tags', '--no-recurse-submodules', '--depth=1', 'origin', sha]
  const fetch = await runGit([...STALLED_TRANSFER_ENDS, ...args], {
    cwd: repo,
    timeoutMs: o.fetchTimeoutMs ?? FETCH_TIMEOUT_MS,
    signal: o.signal,
    guard: o.guard,
  })
  if (o.signal?.aborted) return { unavailable: CANCELLED }
  if (!fetch.ok) return { unavailable: `fetching the base commit ${short} from origin failed: ${fetch.reason}` }
  if (!(await hasCommit(o, repo, sha)))
    return { unavailable: `fetching the base commit ${short} from origin did not bring that commit` }
  return { fetched: true }
}

/**
 * Checks out the base commit `o.sha` of `o.repoRoot` into a new worktree under `o.tempDir`, fetching it first
 * when the checkout lacks it. The cleanup task is registered with the guard before `git worktree add`, so the
 * post step or the watchdog removes the worktree if this process never does.
 */
export async function checkoutBase(o: BaseOptions): Promise<BaseCheckout | BaseUnavailable> {
  const sha = o.sha.trim().toLowerCase()
  if (!COMMIT_ID.test(sha)) {
    const shown = redact(o.sha.slice(0, 80)).replace(/[^\x20-\x7e]/g, '?')
    return { unavailable: `the base commit "${shown}" is not a commit id (40 or 64 hexadecimal digits)` }
  }
  const short = sha.slice(0, 7)
  if (!isAbsolute(o.tempDir)) return { unavailable: `the temporary folder ${o.tempDir} is not an absolute path` }
  const repo = resolve(o.repoRoot)
  const present = await ensureCommit(o, repo, sha)
  if ('unavailable' in present) return present
  let task: WorktreeTask
  try {
    task = { kind: 'worktree', ...(await makeWorktreeFolder(repo, o.tempDir)) }
  } catch (error) {
    return { unavailable: `no folder for the base commit ${short} under ${o.tempDir}: ${errorMessage(error)}` }
  }
  o.guard?.register(task)
  const remove = async () => {
    const outcome = await removeWorktree(task)
    if ('refused' in outcome) o.log.warn(`base worktree left in place: ${outcome.refused}`)
    else if ('problem' in outcome) o.log.warn(`base worktree: ${outcome.problem}`)
    else o.guard?.forget(task)
  }
  const added = await addWorktree(task, sha, { signal: o.signal, guard: o.guard })
  if (!added.ok) {
    await remove()
    if (o.signal?.aborted) return { unavailable: CANCELLED }
    return { unavailable: `checking out the base commit ${short} into a worktree failed: ${added.reason}` }
  }
  o.log.debug(`base commit ${short} checked out in ${join(task.path, WORKTREE_TREE)}`)
  return { sha, root: join(task.path, WORKTREE_TREE), fetched: present.fetched, remove }
}
