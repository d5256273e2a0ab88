/**
 * The base arm of a same-box A/B (docs/same-box.md, "What the base arm runs"): the PR's base commit checked out in a
 * temporary worktree, its matrix file expanded the same way as the PR's, each target's launch running in that worktree
 * so that its relative paths name the base's files. Prepared once per run, before the first target, when any target
 * wants an A/B (run/measure-targets.ts); whatever makes it unavailable is one line the report shows.
 */
import { existsSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { loadPlan } from '../config/index.js'
import { ConfigError, errorMessage } from '../core/errors.js'
import type { Logger } from '../core/log.js'
import type { Plan } from '../core/plan.js'
import type { BaseArm } from '../target-run/same-box.js'
import { runCommand } from '../host/index.js'
import type { RunGuard } from '../server/index.js'
import { checkoutBase, type BaseCheckout } from './base-commit.js'
import { repositoryRoot } from './changed-files.js'
import type { RunContext } from './context.js'

/** `git diff --name-only` of a PR against its base: bounded like every host command, a little more generous. */
const DIFF_LIMITS = { timeoutMs: 60_000, maxBytes: 8 * 1024 * 1024 }

/** The base arm the targets are handed, and the checkout the run removes when its measuring ends. */
export type PreparedBaseArm = BaseArm & { checkout: BaseCheckout }

export interface BaseArmOptions {
  plan: Plan
  context: RunContext
  /** The run's working directory: the base plan's is the same folder in the worktree. */
  cwd: string
  /** Where the worktree goes: RUNNER_TEMP on a runner, the system's temporary folder elsewhere. */
  tempDir: string
  guard?: RunGuard
  signal: AbortSignal
  log: Logger
}

/**
 * The plan a checked-out commit defines: the run's matrix file at the same path in its worktree, every launch running
 * there (in the same folder the run's working directory is within the checkout), `only` applied when given; or why
 * there is none, naming `commit` ("the base commit abc1234"). Never throws; the caller removes the worktree.
 */
export async function planAtCommit(
  checkout: { root: string },
  o: { repoRoot: string; plan: Plan; cwd: string; commit: string; only?: string },
): Promise<Plan | { unavailable: string }> {
  const configFile = relative(o.repoRoot, o.plan.resolvedPath)
  const config = join(checkout.root, configFile)
  if (!existsSync(config)) return { unavailable: `${configFile} does not exist at ${o.commit}` }
  const inside = relative(o.repoRoot, resolve(o.cwd))
  const workdir = inside.startsWith('..') ? checkout.root : join(checkout.root, inside)
  try {
    return await loadPlan(config, { workdir, ...(o.only && { only: o.only }) })
  } catch (error) {
    const why = error instanceof ConfigError ? error.problems.slice(0, 2).join('; ') : errorMessage(error)
    return { unavailable: `${configFile} at ${o.commit} is not a valid matrix file (${why})` }
  }
}

/** The base arm, or why there is none. Never throws. */
export async function prepareBaseArm(o: BaseArmOptions): Promise<PreparedBaseArm | { unavailable: string }> {
  const { context, plan } = o
  if (!context.baseSha)
    return {
      unavailable: `the ${context.event || 'local'} run names no base commit to measure (a pull request's base; on the CLI, --base REV)`,
    }
  if (context.fork)
    return {
      unavailable: `the pull request comes from the fork ${context.fork}; the base arm runs only for pull requests within the repository`,
    }
  const repoRoot = repositoryRoot(plan.resolvedPath)
  if (!repoRoot) return { unavailable: `${plan.configPath} is not inside a git checkout` }
  const checkout = await checkoutBase({
    repoRoot,
    sha: context.baseSha,
    tempDir: o.tempDir,
    guard: o.guard,
    signal: o.signal,
    log: o.log,
  })
  if ('unavailable' in checkout) return checkout
  const short = context.baseSha.slice(0, 7)
  const basePlan = await planAtCommit(checkout, { repoRoot, plan, cwd: o.cwd, commit: `the base commit ${short}` })
  if ('unavailable' in basePlan) {
    await checkout.remove()
    return basePlan
  }
  const diff = await runCommand('git', ['-C', repoRoot, 'diff', '--name-only', '-z', checkout.sha], DIFF_LIMITS)
  const changed = diff.ok ? diff.stdout.split('\0').filter(Boolean) : undefined
  if (!diff.ok) o.log.warn(`the files the PR changes since ${short} could not be listed (${diff.reason})`)
  return { sha: checkout.sha, plan: basePlan, repoRoot, worktree: checkout.root, changed, checkout }
}
