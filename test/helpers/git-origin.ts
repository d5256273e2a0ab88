/**
 * Real git repositories for the base-commit tests: an "origin" (a bare repository) with two commits, base then
 * head, and clones of it, shallow (`--depth 1` over file://, so the base commit is missing, as after
 * `actions/checkout` with its default `fetch-depth: 1`) or full.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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

/** base: `bench.yml` says `base`; head: it says `head` and `added.txt` appears. */
export function makeOrigin(prefix = 'lbg-git-'): Origin {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const work = join(dir, 'work')
  mkdirSync(work)
  git(work, 'init', '-q', '-b', 'main')
  writeFileSync(join(work, 'bench.yml'), 'base\n')
  git(work, 'add', 'bench.yml')
  git(work, 'commit', '-q', '-m', 'base')
  const base = git(work, 'rev-parse', 'HEAD')
  writeFileSync(join(work, 'bench.yml'), 'head\n')
  writeFileSync(join(work, 'added.txt'), 'only at head\n')
  git(work, 'add', '.')
  git(work, 'commit', '-q', '-m', 'head')
  const head = git(work, 'rev-parse', 'HEAD')
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
