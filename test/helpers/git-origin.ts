/**
 * Real git repositories for the base-commit tests: an "origin" (a bare repository) with two commits, base then
 * head, and clones of it, shallow (`--depth 1` over file://, so the base commit is missing, as after
 * `actions/checkout` with its default `fetch-depth: 1`) or full.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** `git <args>` in `cwd`, its output trimmed; identity given here so no global configuration is needed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=lbg', '-c', 'user.email=lbg@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim()
}

export interface Origin {
  /** A fresh folder holding everything of this origin. */
  dir: string
  /** The bare repository. */
  bare: string
  base: string
  head: string
}

/** What each commit writes over the one before it: repository paths and their contents. */
export interface OriginFiles {
  base: Record<string, string>
  head: Record<string, string>
}

/** Default: base: `bench.yml` says `base`; head: it says `head` and `added.txt` appears. */
const DEFAULT_FILES: OriginFiles = {
  base: { 'bench.yml': 'base\n' },
  head: { 'bench.yml': 'head\n', 'added.txt': 'only at head\n' },
}

function commit(work: string, files: Record<string, string>, message: string): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true })
    writeFileSync(join(work, path), text)
  }
  git(work, 'add', '-A')
  git(work, 'commit', '-q', '--allow-empty', '-m', message)
  return git(work, 'rev-parse', 'HEAD')
}

export function makeOrigin(prefix = 'lbg-git-', files: OriginFiles = DEFAULT_FILES): Origin {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const work = join(dir, 'work')
  mkdirSync(work)
  git(work, 'init', '-q', '-b', 'main')
  const base = commit(work, files.base, 'base')
  const head = commit(work, files.head, 'head')
  const bare = join(dir, 'origin.git')
  git(dir, 'clone', '-q', '--bare', work, bare)
  return { dir, bare, base, head }
}

/** A clone of the head commit only: the base commit is not in it. */
export function shallowClone(origin: Origin, name = 'shallow'): string {
  const path = join(origin.dir, name)
  git(origin.dir, 'clone', '-q', '--depth', '1', '--branch', 'main', `file://${origin.bare}`, path)
  return path
}

export function fullClone(origin: Origin, name = 'full'): string {
  const path = join(origin.dir, name)
  git(origin.dir, 'clone', '-q', '--branch', 'main', origin.bare, path)
  return path
}

/** The worktree paths `git worktree list` shows for a repository, the main one first. */
export function worktreeList(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
}

/** The `pull_request` event of PR #7 on `o/r` with the base commit the payload names. */
export function prEvent(baseSha: string, head = 'o/r') {
  return {
    name: 'pull_request',
    ref: 'refs/pull/7/merge',
    payload: {
      pull_request: {
        number: 7,
        base: { sha: baseSha, repo: { full_name: 'o/r' } },
        head: { repo: { full_name: head } },
      },
      repository: { default_branch: 'main', full_name: 'o/r' },
    },
  }
}

/**
 * A repository of first-parent commits, one per entry of `commits` (each writes its files over the one before), on
 * `main`, checked out at the last: a full history, as `actions/checkout` with `fetch-depth: 0` leaves it. The shas
 * oldest first.
 */
export function linearRepo(
  prefix: string,
  commits: readonly Record<string, string>[],
): { checkout: string; shas: string[] } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const checkout = join(dir, 'checkout')
  mkdirSync(checkout)
  git(checkout, 'init', '-q', '-b', 'main')
  const shas = commits.map((files, i) => commit(checkout, files, `commit ${i + 1}`))
  return { checkout, shas }
}

/** One more commit on the checkout's branch, writing `files`; its sha. */
export function commitOnto(checkout: string, files: Record<string, string>): string {
  return commit(checkout, files, 'one more')
}
