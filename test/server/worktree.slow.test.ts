/**
 * Removing a base-commit worktree with real git: the worktree and git's record of it go, twice is fine, and a
 * saved path that is not a folder we made (wrong name, no marker, a marker naming another repository, a
 * symlink) is left exactly as it was. runCleanup removes worktrees last, after the stop commands.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCleanup, type CleanupTask } from '../../src/server/cleanup.js'
import { gitReason } from '../../src/server/git.js'
import {
  addWorktree,
  makeWorktreeFolder,
  removeWorktree,
  WORKTREE_MARKER,
  WORKTREE_TREE,
  type WorktreeRef,
} from '../../src/server/worktree.js'
import { fullClone, git, makeOrigin, worktreeList } from '../helpers/git-origin.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function setup() {
  const origin = makeOrigin()
  const temp = mkdtempSync(join(tmpdir(), 'lbg-temp-'))
  dirs.push(origin.dir, temp)
  return { origin, repo: fullClone(origin), temp }
}

async function worktreeOfBase(): Promise<{ ref: WorktreeRef; repo: string; temp: string }> {
  const { origin, repo, temp } = setup()
  const ref = await makeWorktreeFolder(repo, temp)
  const added = await addWorktree(ref, origin.base)
  expect(added).toMatchObject({ ok: true })
  expect(readFileSync(join(ref.path, WORKTREE_TREE, 'bench.yml'), 'utf8')).toBe('base\n')
  expect(worktreeList(repo)).toContain(join(ref.path, WORKTREE_TREE))
  return { ref, repo, temp }
}

describe('removeWorktree', () => {
  it('removes the worktree, its folder and git’s record of it; a second call finds nothing', async () => {
    const { ref, repo } = await worktreeOfBase()
    writeFileSync(join(ref.path, WORKTREE_TREE, 'untracked.txt'), 'left by an engine\n')
    expect(await removeWorktree(ref)).toEqual({ removed: true })
    expect(existsSync(ref.path)).toBe(false)
    expect(worktreeList(repo)).toEqual([repo])
    expect(await removeWorktree(ref)).toEqual({ removed: false })
  })

  it('removes the folder even when git no longer knows it, and git’s record once the folder is gone', async () => {
    const { ref, repo } = await worktreeOfBase()
    rmSync(join(repo, '.git', 'worktrees'), { recursive: true, force: true })
    expect(await removeWorktree(ref)).toEqual({ removed: true })
    expect(existsSync(ref.path)).toBe(false)
    // The folder deleted by hand: git still lists it until the prune a later call runs.
    const again = await worktreeOfBase()
    rmSync(again.ref.path, { recursive: true, force: true })
    expect(worktreeList(again.repo)).toHaveLength(2)
    expect(await removeWorktree(again.ref)).toEqual({ removed: false })
    expect(worktreeList(again.repo)).toEqual([again.repo])
  })

  it.each([
    ['a folder not named llm-bench-gate-base-*', 'lbg-other-', true, undefined, /is not named llm-bench-gate-base-\*/],
    ['a folder without the marker', 'llm-bench-gate-base-', false, undefined, /has no llm-bench-gate-worktree\.json/],
    [
      'a marker naming another repository',
      'llm-bench-gate-base-',
      true,
      '/somewhere/else',
      /does not name the repository/,
    ],
  ])('leaves %s as it was', async (_, prefix, marker, markedRepo, why) => {
    const { repo, temp } = setup()
    const path = mkdtempSync(join(temp, prefix))
    mkdirSync(join(path, WORKTREE_TREE))
    writeFileSync(join(path, WORKTREE_TREE, 'keep.txt'), 'keep\n')
    if (marker)
      writeFileSync(
        join(path, WORKTREE_MARKER),
        JSON.stringify({ 'llm-bench-gate': 'base-worktree', repo: markedRepo ?? repo }),
      )
    const outcome = await removeWorktree({ repo, path })
    expect('refused' in outcome && outcome.refused).toMatch(why)
    expect(readFileSync(join(path, WORKTREE_TREE, 'keep.txt'), 'utf8')).toBe('keep\n')
  })

  it('leaves a symlink named like ours, and the folder it points to', async () => {
    const { ref, repo, temp } = await worktreeOfBase()
    const link = join(temp, 'llm-bench-gate-base-link')
    symlinkSync(ref.path, link)
    expect(await removeWorktree({ repo, path: link })).toEqual({ refused: `${link} is not a folder` })
    expect(existsSync(join(ref.path, WORKTREE_TREE, 'bench.yml'))).toBe(true)
    expect(await removeWorktree({ repo, path: `${ref.path}/../x/..` })).toMatchObject({ refused: /normalised/ })
    expect(existsSync(ref.path)).toBe(true)
  })
})

describe('runCleanup with a worktree task', () => {
  it('removes it after the stop commands ran in it (they still saw the files) and reports the path', async () => {
    const { ref, repo, temp } = await worktreeOfBase()
    const logPath = join(temp, 'target.log')
    const tree = join(ref.path, WORKTREE_TREE)
    const tasks: CleanupTask[] = [
      { kind: 'worktree', ...ref },
      {
        kind: 'stop',
        target: 't',
        // Relative to its cwd: the base arm's stop command runs in the base commit's worktree.
        command: 'test -f bench.yml && echo tree-present',
        env: {},
        passEnv: [],
        logPath,
        cwd: tree,
      },
      { kind: 'worktree', ...ref },
    ]
    const report = await runCleanup(tasks, 100)
    expect(readFileSync(logPath, 'utf8')).toContain('tree-present')
    expect(report.worktrees).toEqual([ref.path])
    expect(report.problems).toEqual([])
    expect(existsSync(ref.path)).toBe(false)
    expect(worktreeList(repo)).toEqual([repo])
    // Again, as the post step after the watchdog: the worktree is gone, the stop command still runs (elsewhere).
    const again = await runCleanup(tasks, 100)
    expect(again.stops).toBe(1)
    expect(readFileSync(logPath, 'utf8')).not.toContain('could not start')
    expect(readFileSync(logPath, 'utf8').match(/stop: \$ test -f bench\.yml/g)).toHaveLength(2)
  })

  it('refuses a path that is not ours, leaves it and says so', async () => {
    const { repo, temp } = setup()
    const path = mkdtempSync(join(temp, 'llm-bench-gate-base-'))
    writeFileSync(join(path, 'precious.txt'), 'x')
    const report = await runCleanup([{ kind: 'worktree', repo, path }], 100)
    expect(report.worktrees).toEqual([])
    expect(report.problems).toEqual([`worktree left in place: ${path} has no ${WORKTREE_MARKER}`])
    expect(existsSync(join(path, 'precious.txt'))).toBe(true)
    expect(git(repo, 'status', '--porcelain')).toBe('')
  })
})

describe('gitReason', () => {
  it.each([
    [
      "fatal: '/x.git' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n",
      "'/x.git' does not appear to be a git repository",
    ],
    ['Preparing worktree (detached HEAD 1234567)\nhook says no\n', 'hook says no'],
    [
      'fatal: unable to access https://x-access-token:s3cretvalue@github.com/o/r/: 403\n',
      'unable to access https://***@github.com/o/r/: 403',
    ],
    ['fatal: \u001b[31mred\u001b[0m', '[31mred [0m'],
    ['', 'no message'],
  ])('%j → %j', (stderr, reason) => {
    expect(gitReason(stderr)).toBe(reason)
  })

  it('bounds a long line to 200 characters', () => {
    const reason = gitReason(`fatal: ${'y'.repeat(1000)}`)
    expect(reason).toHaveLength(200)
    expect(reason.endsWith('…')).toBe(true)
  })
})
