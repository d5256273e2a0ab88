/**
 * A temporary git worktree of another commit (git-worktree(1)), and its removal by whoever ends the run:
 * the owner, the post step or the watchdog. The folder we create is `<temp>/llm-bench-gate-base-XXXXXX`,
 * holding a marker file that names the repository and the worktree itself in `tree/` (git refuses to add a
 * worktree into a folder that is not empty, so the marker sits beside it). Removal touches a folder only
 * when both its name and its marker say it is ours: a saved path that points anywhere else is left alone.
 */
import { lstat, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, isAbsolute, join, resolve } from 'node:path'
import { errorMessage } from '../core/errors.js'
import { runGit, type GitOptions, type GitResult } from './git.js'

export const WORKTREE_PREFIX = 'llm-bench-gate-base-'
export const WORKTREE_MARKER = 'llm-bench-gate-worktree.json'
/** The worktree's folder inside ours. */
export const WORKTREE_TREE = 'tree'

/** Checking out a commit writes its every file: more time than a plain git command. */
export const WORKTREE_ADD_TIMEOUT_MS = 5 * 60_000

export interface WorktreeRef {
  /** The repository the worktree belongs to (`git -C`). */
  repo: string
  /** Our folder: the marker and `tree/`. */
  path: string
}

interface Marker {
  'llm-bench-gate': 'base-worktree'
  repo: string
}

/** Creates our folder under `tempDir`, marker written, nothing checked out yet. */
export async function makeWorktreeFolder(repo: string, tempDir: string): Promise<WorktreeRef> {
  const path = await mkdtemp(join(resolve(tempDir), WORKTREE_PREFIX))
  const marker: Marker = { 'llm-bench-gate': 'base-worktree', repo }
  await writeFile(join(path, WORKTREE_MARKER), `${JSON.stringify(marker)}\n`, { flag: 'wx' })
  return { repo, path }
}

/** `git worktree add --detach <path>/tree <commit>`: a checkout of that commit, on no branch. */
export function addWorktree(
  ref: WorktreeRef,
  commit: string,
  options: Pick<GitOptions, 'signal' | 'guard'> = {},
): Promise<GitResult> {
  return runGit(['worktree', 'add', '--detach', join(ref.path, WORKTREE_TREE), commit], {
    cwd: ref.repo,
    timeoutMs: WORKTREE_ADD_TIMEOUT_MS,
    ...options,
  })
}

/** Why `ref.path` is not a folder we made, or undefined when it is; `gone` when there is nothing there. */
export async function notOurs(ref: WorktreeRef): Promise<string | 'gone' | undefined> {
  const { path } = ref
  if (!isAbsolute(path) || resolve(path) !== path) return `${path} is not an absolute, normalised path`
  if (!basename(path).startsWith(WORKTREE_PREFIX)) return `${path} is not named ${WORKTREE_PREFIX}*`
  const stat = await lstat(path).catch((error: NodeJS.ErrnoException) => error)
  if (stat instanceof Error) return stat.code === 'ENOENT' ? 'gone' : `${path}: ${errorMessage(stat)}`
  if (!stat.isDirectory()) return `${path} is not a folder`
  const markerPath = join(path, WORKTREE_MARKER)
  const markerStat = await lstat(markerPath).catch(() => undefined)
  if (!markerStat?.isFile()) return `${path} has no ${WORKTREE_MARKER}`
  try {
    const marker = JSON.parse(await readFile(markerPath, 'utf8')) as Partial<Marker>
    if (marker['llm-bench-gate'] === 'base-worktree' && marker.repo === ref.repo) return undefined
  } catch {
    // An unreadable marker proves nothing.
  }
  return `${path}: its ${WORKTREE_MARKER} does not name the repository ${ref.repo}`
}

export type WorktreeRemoval = { removed: boolean } | { refused: string } | { problem: string }

/**
 * Removes a worktree we made: `git worktree remove --force`, the folder if still there, then `git worktree
 * prune` for git's own record of it. Safe to run twice (`removed: false` once it is gone); never throws.
 */
export async function removeWorktree(ref: WorktreeRef): Promise<WorktreeRemoval> {
  const check = await notOurs(ref)
  if (check === 'gone') {
    await runGit(['worktree', 'prune'], { cwd: ref.repo })
    return { removed: false }
  }
  if (check) return { refused: check }
  // Failures here are fine while the folder goes: the repository may be gone, or git may never have added it.
  await runGit(['worktree', 'remove', '--force', join(ref.path, WORKTREE_TREE)], { cwd: ref.repo })
  try {
    await rm(ref.path, { recursive: true, force: true, maxRetries: 2 })
  } catch (error) {
    return { problem: `${ref.path} could not be removed: ${errorMessage(error)}` }
  }
  await runGit(['worktree', 'prune'], { cwd: ref.repo })
  return { removed: true }
}
