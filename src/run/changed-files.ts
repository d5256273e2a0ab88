/**
 * `select: changed` on a pull request: the PR's changed files from the GitHub API (`pulls/{n}/files`, read
 * in-house: third-party changed-files actions have been compromised before, CVE-2025-30066), the matrix file
 * at the PR's base when the PR changes it, then the targets to run. Whenever the list is incomplete or cannot
 * be read, every target runs and the run says why.
 */
import { existsSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { buildPlan, formatOf, parseSource, repoPath, selectChanged } from '../config/index.js'
import { errorMessage } from '../core/errors.js'
import { plural } from '../core/format.js'
import { httpStatus, type GitHubRequest, type RepoRef } from '../core/github-port.js'
import type { Logger } from '../core/log.js'
import type { Plan, TargetPlan } from '../core/plan.js'
import { readRepoFile } from '../store/index.js'

/** The files API lists at most this many files of a pull request (docs.github.com/rest/pulls/pulls#list-pull-requests-files). */
export const PR_FILES_LIMIT = 3000
const PER_PAGE = 100

export interface ChangedSelection {
  /** The plan with only the targets to run. */
  plan: Plan
  /** Targets left out: their cells are reported `skipped (unchanged)`. */
  skipped: TargetPlan[]
  /** One line for the report and the log: what ran and why, or why everything ran. */
  note: string
}

export interface SelectDeps {
  github?: { request: GitHubRequest; repo: RepoRef }
  prNumber?: number
  baseSha?: string
  log: Logger
}

/** Every file the PR touches (a rename counts for its old path too), or why the list is incomplete. */
export async function listChangedFiles(
  request: GitHubRequest,
  repo: RepoRef,
  pr: number,
): Promise<{ files: string[] } | { incomplete: string }> {
  const files = new Set<string>()
  let listed = 0
  for (let page = 1; page <= PR_FILES_LIMIT / PER_PAGE; page++) {
    const { data } = await request('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', {
      ...repo,
      pull_number: pr,
      per_page: PER_PAGE,
      page,
    })
    if (!Array.isArray(data)) throw new Error(`page ${page} of the PR's files is not a list`)
    for (const file of data as { filename?: unknown; previous_filename?: unknown }[]) {
      if (typeof file.filename !== 'string')
        throw new Error(`page ${page} of the PR's files has an entry without a filename`)
      files.add(file.filename)
      if (typeof file.previous_filename === 'string') files.add(file.previous_filename)
    }
    listed += data.length
    if (data.length < PER_PAGE) break
  }
  if (listed >= PR_FILES_LIMIT)
    return {
      incomplete: `the PR changes ${PR_FILES_LIMIT.toLocaleString('en-US')} files or more, past what the GitHub API lists`,
    }
  return { files: [...files] }
}

/** The matrix file's targets at the PR's base, or why they cannot be known. */
async function baseTargets(deps: SelectDeps, plan: Plan, file: string): Promise<TargetPlan[] | string> {
  if (!deps.baseSha) return 'the event does not name the PR base commit'
  try {
    const stored = await readRepoFile(deps.github!.request, deps.github!.repo, deps.baseSha, file)
    if (!stored) return `${file} does not exist at the base commit ${deps.baseSha.slice(0, 7)}`
    const source = parseSource(stored.text, file, formatOf(file))
    return buildPlan(source.data, { configPath: plan.configPath, resolvedPath: plan.resolvedPath }).targets
  } catch (error) {
    return `${file} at the base commit ${deps.baseSha.slice(0, 7)} could not be read (${errorMessage(error)})`
  }
}

/**
 * The checkout the matrix file is in: the nearest folder above it with a `.git` (a folder, or a file in a worktree
 * or submodule). The PR's file names are relative to it, which need not be the working directory: `actions/checkout`
 * with `path:` puts the repository in a subfolder of the workspace.
 */
export function repositoryRoot(file: string): string | undefined {
  for (let dir = dirname(file), guard = 0; guard < 256; guard++) {
    if (existsSync(join(dir, '.git'))) return dir
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
  return undefined
}

const everything = (plan: Plan, why: string): ChangedSelection => ({
  plan,
  skipped: [],
  note: `select: changed — every target runs: ${why}`,
})

/** The targets a pull request touches. Never throws: whatever cannot be read makes every target run. */
export async function selectChangedTargets(plan: Plan, deps: SelectDeps): Promise<ChangedSelection> {
  const { github, prNumber, log } = deps
  if (!plan.targets.some((t) => t.paths)) return everything(plan, 'no target lists paths')
  if (!github || prNumber === undefined) return everything(plan, 'not a pull request with a GitHub token')
  let listed: Awaited<ReturnType<typeof listChangedFiles>>
  try {
    listed = await listChangedFiles(github.request, github.repo, prNumber)
  } catch (error) {
    const status = httpStatus(error)
    const why = `${status ? `HTTP ${status}: ` : ''}${errorMessage(error)}`
    log.warn(`the PR's changed files could not be read: ${why}`)
    return everything(plan, `the PR's changed files could not be read (${why})`)
  }
  if ('incomplete' in listed) return everything(plan, listed.incomplete)
  const root = repositoryRoot(plan.resolvedPath)
  if (!root)
    return everything(
      plan,
      `${plan.configPath} is not inside a git checkout, so whether the PR changed it cannot be told`,
    )
  const configFile = repoPath(relative(root, plan.resolvedPath))
  let baseNote = ''
  let base: TargetPlan[] | undefined
  if (listed.files.includes(configFile)) {
    const read = await baseTargets(deps, plan, configFile)
    if (typeof read === 'string') {
      log.warn(`${read}: every target the matrix file defines runs`)
      baseNote = `; ${read}, so every target of the matrix file runs`
    } else base = read
  }
  const selected = selectChanged({ targets: plan.targets, changed: listed.files, configFile, base })
  for (const t of selected.run) log.info(`${t.id}: runs (${selected.reasons[t.id]})`)
  for (const t of selected.skipped) log.info(`${t.id}: skipped, none of its paths changed`)
  const ran = new Set(selected.run.map((t) => t.id))
  const note =
    `select: changed — ${plural(listed.files.length, 'changed file')}; ran ${selected.run.length} of ${plural(plan.targets.length, 'target')}` +
    (selected.skipped.length
      ? `, ${selected.skipped.length} skipped (unchanged): ${selected.skipped.map((t) => t.id).join(', ')}`
      : '') +
    baseNote
  return {
    plan: { ...plan, targets: selected.run, cells: plan.cells.filter((c) => ran.has(c.target.id)) },
    skipped: selected.skipped,
    note,
  }
}
