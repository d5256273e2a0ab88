/**
 * The commits of a bisection on disk (docs/bisect.md): `good` and `bad` resolved by git, the first-parent commits
 * between them (`git rev-list --first-parent`, as `git bisect --first-parent` walks a branch of merges), and each
 * probed commit in a temporary worktree with its own matrix file, exactly as the same-box A/B's base arm is
 * (base-arm.ts): its launches run in that worktree, its `ab-setup` runs there once, and the run's guard removes the
 * worktree if this process does not.
 */
import type { Logger } from '../core/log.js'
import type { CellPlan, Plan, TargetPlan } from '../core/plan.js'
import {
  AB_ARM_VARIABLE,
  AB_BASE_SHA_VARIABLE,
  logPathFor,
  runGit,
  runSetupCommand,
  type RunGuard,
} from '../server/index.js'
import { planAtCommit } from './base-arm.js'
import { checkoutBase, type BaseCheckout } from './base-commit.js'

/** A range past this is not one a box can bisect in a budget of hours; it is refused before anything launches. */
export const MAX_RANGE = 4096

export interface CommitsOptions {
  repoRoot: string
  good: string
  /** Empty: the event's commit, else HEAD. */
  bad: string
  eventSha: string
  signal: AbortSignal
  guard?: RunGuard
}

const fetchAll = 'check the repository out with its history (actions/checkout with fetch-depth: 0)'

/** The full id of a revision, or why git could not name one. */
async function resolveRevision(o: CommitsOptions, name: string, rev: string): Promise<string | { problem: string }> {
  const got = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], {
    cwd: o.repoRoot,
    signal: o.signal,
    guard: o.guard,
  })
  if (got.ok && /^[0-9a-f]{40,64}$/.test(got.stdout.trim())) return got.stdout.trim()
  return { problem: `${name} "${rev}" is not a commit in this checkout (${fetchAll})` }
}

/** The first-parent commits from `good` to `bad`, both ends included, oldest first; or why there are none. */
export async function bisectCommits(o: CommitsOptions): Promise<{ commits: string[] } | { problem: string }> {
  const good = await resolveRevision(o, 'good', o.good)
  if (typeof good !== 'string') return good
  const bad = await resolveRevision(o, 'bad', o.bad || o.eventSha || 'HEAD')
  if (typeof bad !== 'string') return bad
  const git = (args: string[]) => runGit(args, { cwd: o.repoRoot, signal: o.signal, guard: o.guard })
  const shallow = await git(['rev-parse', '--is-shallow-repository'])
  const ancestor = await git(['merge-base', '--is-ancestor', good, bad])
  if (!ancestor.ok) {
    const why = shallow.ok && shallow.stdout.trim() === 'true' ? ` (the checkout is shallow: ${fetchAll})` : ''
    return { problem: `good ${good.slice(0, 7)} is not an ancestor of bad ${bad.slice(0, 7)}${why}` }
  }
  const list = await git(['rev-list', '--first-parent', '--reverse', `--max-count=${MAX_RANGE + 1}`, `${good}..${bad}`])
  if (!list.ok)
    return { problem: `the commits from ${good.slice(0, 7)} to ${bad.slice(0, 7)} could not be listed: ${list.reason}` }
  const after = list.stdout.split('\n').filter(Boolean)
  if (after.length > MAX_RANGE)
    return { problem: `more than ${MAX_RANGE} first-parent commits from good to bad: choose a narrower range` }
  if (!after.length) return { problem: `good ${good.slice(0, 7)} and bad ${bad.slice(0, 7)} are the same commit` }
  if (after.at(-1) !== bad)
    return { problem: `bad ${bad.slice(0, 7)} is not on the first-parent line from good ${good.slice(0, 7)}` }
  return { commits: [good, ...after] }
}

/** One commit's definition of the target: its worktree, the target and the probed cells as its matrix file says. */
export interface CommitArm {
  sha: string
  target: TargetPlan
  cells: CellPlan[]
}

export interface ArmsOptions {
  /** The checkout's plan: which matrix file, which target, which cells. */
  plan: Plan
  repoRoot: string
  /** The run's working directory: each commit's plan is the same folder in its worktree. */
  cwd: string
  only: string
  tempDir: string
  logDir: string
  guard?: RunGuard
  signal: AbortSignal
  log: Logger
}

/** The commits' worktrees, each prepared once when first probed and all removed by `close`. */
export class CommitArms {
  private readonly prepared = new Map<
    string,
    Promise<{ checkout: BaseCheckout; plan: Plan } | { unavailable: string }>
  >()
  constructor(private readonly o: ArmsOptions) {}

  /** The commit's target and cells (ids as the checkout's plan names them), or why it has none. */
  async arm(sha: string, target: string, cells: readonly string[]): Promise<CommitArm | { unavailable: string }> {
    let ready = this.prepared.get(sha)
    if (!ready) this.prepared.set(sha, (ready = this.prepare(sha)))
    const got = await ready
    if ('unavailable' in got) return got
    const t = got.plan.targets.find((x) => x.id === target)
    if (!t) return { unavailable: `${sha.slice(0, 7)} does not define ${target}` }
    const mine = got.plan.cells.filter((c) => c.target.id === target && cells.includes(c.id))
    const lacking = cells.filter((id) => !mine.some((c) => c.id === id))
    if (lacking.length) return { unavailable: `${sha.slice(0, 7)} does not define ${lacking.join(', ')}` }
    const setup = await this.setup(sha, t, got.checkout.root)
    return setup ?? { sha, target: t, cells: mine }
  }

  /** Every worktree removed; never throws. */
  async close(): Promise<void> {
    for (const ready of this.prepared.values()) {
      const got = await ready.catch(() => undefined)
      if (got && 'checkout' in got) await got.checkout.remove()
    }
    this.prepared.clear()
  }

  private readonly setups = new Map<string, Promise<{ unavailable: string } | undefined>>()

  /** The target's `ab-setup` in the commit's worktree, once per commit, bounded like the A/B's. */
  private setup(sha: string, target: TargetPlan, root: string): Promise<{ unavailable: string } | undefined> {
    const command = target.settings.ab.setup
    if (!command) return Promise.resolve(undefined)
    let done = this.setups.get(sha)
    if (!done) {
      const name = `ab-setup of ${target.id} at ${sha.slice(0, 7)}`
      this.o.log.info(`${target.id}: ${name}: ${command}`)
      done = runSetupCommand({
        name,
        command,
        cwd: target.workdir ?? root,
        env: { ...target.env, [AB_ARM_VARIABLE]: 'base', [AB_BASE_SHA_VARIABLE]: sha },
        passEnv: target.settings.passEnv,
        logPath: logPathFor(this.o.logDir, `${target.id}.ab-setup.${sha.slice(0, 7)}`),
        timeoutMs: target.settings.bisect.budgetMs,
        guard: this.o.guard,
        signal: this.o.signal,
      }).then((outcome) => (outcome.ok ? undefined : { unavailable: outcome.reason }))
      this.setups.set(sha, done)
    }
    return done
  }

  private async prepare(sha: string): Promise<{ checkout: BaseCheckout; plan: Plan } | { unavailable: string }> {
    const { o } = this
    const checkout = await checkoutBase({
      repoRoot: o.repoRoot,
      sha,
      tempDir: o.tempDir,
      guard: o.guard,
      signal: o.signal,
      log: o.log,
    })
    if ('unavailable' in checkout) return checkout
    const plan = await planAtCommit(checkout, { ...o, commit: sha.slice(0, 7) })
    if ('unavailable' in plan) {
      await checkout.remove()
      return plan
    }
    return { checkout, plan }
  }
}
