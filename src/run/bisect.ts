/**
 * `mode: bisect` (docs/bisect.md): for each target of the checkout's plan (after `only`), the first-parent commits
 * from `good` to `bad` bisected by compare/bisect.ts, each probe a same-box paired A/B of one commit against another
 * (target-run/ab-launches.ts: ABBA order, the sequential rule deciding after every pair, between `ab-launches` and
 * `ab-max-launches` per arm), judged under the checkout's gate and `noise-floor` so every probe is held to the same
 * rule. `bisect-budget` bounds the engine time of all of a target's probes; a launch in flight ends when it runs out.
 */
import {
  abCellVerdict,
  abUndecided,
  bisectCommits as bisectRule,
  serverChanges,
  type Comparison,
} from '../compare/index.js'
import type { BisectRecord, ProbeRole, ProbeSign } from '../core/bisect-record.js'
import { formatDuration } from '../core/format.js'
import type { Logger } from '../core/log.js'
import type { Plan, TargetPlan } from '../core/plan.js'
import type { CellVerdict } from '../core/verdicts.js'
import type { MemInfo, RunGuard } from '../server/index.js'
import { runAbLaunches, type AbLaunches } from '../target-run/ab-launches.js'
import { bisectCommits, CommitArms } from './bisect-commits.js'
import { repositoryRoot } from './changed-files.js'

export interface BisectRunOptions {
  plan: Plan
  good: string
  bad: string
  /** The event's commit: `bad` when the input is empty. */
  eventSha: string
  only: string
  cwd: string
  tempDir: string
  logDir: string
  signal: AbortSignal
  log: Logger
  guard?: RunGuard
  onSpawn?: (pgid: number, start?: number) => void
  readMemory?: () => Promise<MemInfo>
}

/** One bisection per launched target of the plan; never throws: whatever stops one is its record's `error`. */
export async function runBisect(o: BisectRunOptions): Promise<BisectRecord[]> {
  const targets = o.plan.targets.filter((t) => !t.external)
  const none = (target: string, cells: string[], reason: string): BisectRecord => ({
    target,
    cells,
    good: o.good,
    bad: o.bad || o.eventSha,
    commits: [],
    outcome: 'error',
    reason,
    probes: [],
    engineMs: 0,
  })
  const cellsOf = (t: TargetPlan) => o.plan.cells.filter((c) => c.target.id === t.id).map((c) => c.id)
  const repoRoot = repositoryRoot(o.plan.resolvedPath)
  if (!repoRoot) return targets.map((t) => none(t.id, cellsOf(t), `${o.plan.configPath} is not inside a git checkout`))
  const range = await bisectCommits({
    repoRoot,
    good: o.good,
    bad: o.bad,
    eventSha: o.eventSha,
    signal: o.signal,
    guard: o.guard,
  })
  if ('problem' in range) return targets.map((t) => none(t.id, cellsOf(t), range.problem))
  const { commits } = range
  const arms = new CommitArms({ ...o, repoRoot })
  const records: BisectRecord[] = []
  try {
    for (const target of targets) {
      const cells = cellsOf(target)
      o.log.info(
        `${target.id}: bisecting ${commits.length - 1} commit(s) after ${commits[0].slice(0, 7)} up to ${commits.at(-1)!.slice(0, 7)}: ${cells.join(', ')}`,
      )
      const answer = await o.log.group(`bisect ${target.id}`, () => bisectTarget(target, cells, commits, arms, o))
      records.push({ target: target.id, cells, good: commits[0], bad: commits.at(-1)!, commits, ...answer })
      o.log.info(`${target.id}: ${answer.reason}`)
    }
  } finally {
    await arms.close()
  }
  return records
}

/** The bisection of one target's cells over the commits, within its `bisect-budget`. */
function bisectTarget(target: TargetPlan, cells: string[], commits: string[], arms: CommitArms, o: BisectRunOptions) {
  let spentMs = 0
  const budgetMs = target.settings.bisect.budgetMs
  const budgetLeftMs = () => budgetMs - spentMs
  return bisectRule(commits, {
    budgetLeftMs,
    async compare(sha, against, role) {
      const c = await probe(target, cells, { sha, against, role }, arms, { ...o, budgetLeftMs })
      spentMs += c.engineMs
      o.log.info(
        `${target.id}: ${role} ${sha.slice(0, 7)} against ${against.slice(0, 7)}: ${c.sign}${c.reason ? ` (${c.reason})` : ''}, ${formatDuration(c.engineMs)}`,
      )
      return c
    },
  })
}

/** One probe: the commit's arm against the other's, ABBA until the sequential rule decides; never throws. */
async function probe(
  target: TargetPlan,
  cells: string[],
  p: { sha: string; against: string; role: ProbeRole },
  arms: CommitArms,
  o: BisectRunOptions & { budgetLeftMs(): number },
): Promise<Comparison> {
  const empty = { cells: {}, launches: 0, engineMs: 0 }
  const reference = await arms.arm(p.against, target.id, cells)
  if ('unavailable' in reference) return { ...empty, sign: 'error', reason: reference.unavailable }
  const probed = await arms.arm(p.sha, target.id, cells)
  if ('unavailable' in probed) return { ...empty, sign: 'skip', reason: probed.unavailable }
  const { gate, settings } = target
  let inProbeMs = 0
  const judge = (launches: AbLaunches['launches'], final: boolean) =>
    Object.fromEntries(
      cells.map((id) => {
        const pairs = launches.map((l) => ({ arm: l.arm, cell: l.cells!.get(id)! }))
        return [id, abCellVerdict(pairs, gate, { noiseFloor: settings.noiseFloor, final })] as const
      }),
    )
  const outcome = await runAbLaunches(
    {
      base: { target: reference.target, cells: reference.cells },
      pr: { target: probed.target, cells: probed.cells },
      launches: settings.ab.launches,
      maxLaunches: settings.ab.maxLaunches,
      // Another pair while a cell's metric asks for launches and none regressed (compare/ab-verdict.ts).
      undecided: (launches) =>
        cells.some((id) => abUndecided({ id, verdict: NOTHING_STORED }, launches, gate, settings.noiseFloor)),
    },
    {
      ...o,
      seed: 1,
      // The probe's own launches count as they run: each base launch's time, and as much again for its PR launch.
      budgetLeftMs: () => o.budgetLeftMs() - 2 * inProbeMs,
      spend: (ms) => (inProbeMs += ms),
      budgetName: 'bisect-budget',
    },
  )
  const engineMs = outcome.launches.reduce((sum, l) => sum + l.engineMs, 0)
  const launches = Math.floor(outcome.launches.length / 2)
  if (outcome.stopped) {
    const failed = outcome.launches.at(-1)
    // The budget ending a launch leaves the probe undecided; a launch that failed on its own skips its commit.
    const spent = o.budgetLeftMs() <= 0 || o.signal.aborted
    const sign: ProbeSign = spent || !failed?.error ? 'undecided' : failed.arm === 'pr' ? 'skip' : 'error'
    return { cells: {}, launches, engineMs, sign, reason: outcome.stopped }
  }
  const verdicts = withCounters(judge(outcome.launches, true), outcome.launches)
  return {
    cells: verdicts,
    launches,
    engineMs,
    sign: signOf(verdicts),
    ...(outcome.ended && { reason: outcome.ended }),
  }
}

/**
 * Each cell's verdict with the engine counters that moved between the arms (compare/server-changes.ts: the probed
 * commit's steady rounds against the other's, every launch of each): evidence beside the culprit, never a sign.
 */
function withCounters(
  verdicts: Record<string, CellVerdict>,
  launches: AbLaunches['launches'],
): Record<string, CellVerdict> {
  const rounds = (id: string, arm: 'base' | 'pr') =>
    launches.filter((l) => l.arm === arm).flatMap((l) => l.cells?.get(id)?.rounds ?? [])
  return Object.fromEntries(
    Object.entries(verdicts).map(([id, v]) => {
      const moved = serverChanges(rounds(id, 'pr'), rounds(id, 'base'))
      return [id, moved.length ? { ...v, serverChanges: moved } : v]
    }),
  )
}

/** A probe has no stored-baseline verdict: its launches are expected to vary as the target's `noise-floor` says. */
const NOTHING_STORED: CellVerdict = { status: 'new', metrics: {} }

/** Past when a cell regressed, within when every cell passed or improved, else undecided. */
function signOf(verdicts: Record<string, CellVerdict>): ProbeSign {
  const statuses = Object.values(verdicts).map((v) => v.status)
  if (statuses.includes('regression')) return 'past'
  if (statuses.length && statuses.every((s) => s === 'pass' || s === 'improvement')) return 'within'
  return 'undecided'
}
