/**
 * Bisection to the commit (docs/bisect.md), as a rule over probes: which commit to measure next and what the probes
 * name. A probe pairs one commit against another on the same box (the same-box A/B with its sequential rule, which
 * the caller runs); this file only decides, so it is tested against any probe outcomes, noisy or adversarial.
 *
 * 1. **The ends**: the bad commit against the good one. Within the limit: the loss does not reproduce on this box,
 *    and nothing more is measured. Undecided: the box cannot tell the ends apart within `ab-max-launches`.
 * 2. **Halving** (`git bisect`'s search over the first-parent commits): each commit strictly between the last one
 *    within the limit of the reference and the first one past it is measured against the reference — the good end
 *    — the one nearest the middle first, until no commit lies between. The predicate is "worse than the good end
 *    beyond the limit", monotone when levels only fall; an undecided probe counts as within (it did not show the
 *    loss), so a commit is named only on a decided loss. A commit that does not launch is skipped and the one
 *    nearest the middle among the rest measured instead; when only skipped commits are left, the answer is the
 *    range (git bisect: "There are only 'skip'ped commits left to test").
 * 3. **One step or several**: the first commit past the limit against the commit before it. Past the limit too:
 *    that commit is the culprit. Within: no single commit lost past the limit — the loss built up over several,
 *    each within it (creep), and every commit of the range is named a step.
 * 4. **What is left**: unless the culprit's own step holds most of the loss from the reference to the bad end (four
 *    fifths, MOST_OF_THE_LOSS), the bad end against the culprit. Still past the limit: a second step, bisected again
 *    with the culprit as the reference; both are named.
 *
 * With n commits after the good end, halving measures at most ⌈log2 n⌉ commits (plus the skipped), and a culprit one
 * probe more that measures no new commit (step 3), two when its step leaves a loss for a second one (step 4). The
 * budget is checked before every probe; once spent, the range still holding the first commit past the limit is the
 * answer.
 */
import type { BisectProbe, BisectRecord, ProbeRole, ProbeSign } from '../core/bisect-record.js'
import type { CellVerdict } from '../core/verdicts.js'

/** What one probe measured: the sign against the commit it was paired with, and the A/B's verdict per cell. */
export interface Comparison {
  sign: ProbeSign
  cells: Record<string, CellVerdict>
  launches: number
  engineMs: number
  reason?: string
}

export interface BisectRule {
  /** Pairs commit `sha` against `against` on this box; never throws. */
  compare(sha: string, against: string, role: ProbeRole): Promise<Comparison>
  /** Engine time the bisection may still take, ms. */
  budgetLeftMs(): number
  /** Steps past the limit looked for at most (default MAX_STEPS). */
  maxSteps?: number
}

/** A range holds a few steps at most before "bisect it again" is the better advice: bounded, like every loop here. */
export const MAX_STEPS = 4

export type BisectAnswer = Omit<BisectRecord, 'target' | 'cells' | 'good' | 'bad' | 'commits' | 'pull' | 'issue'>

/**
 * Which commit the halving measures next, or what it has found, with the range it is in (after `lo`, up to `hi`);
 * indices into the commits, 0 the reference.
 */
export type NextProbe = ({ probe: number } | { first: number } | { only: number[] }) & { lo: number; hi: number }

/**
 * The next commit to measure against the reference `from`, given the signs seen against it (a `past` at the bad end
 * at least). The last `within` before the first `past` bounds the range from below; an index seen `past` below a
 * `within` (noise) is still the first `past`, so the range only ever narrows.
 */
export function nextProbe(from: number, seen: ReadonlyMap<number, ProbeSign>): NextProbe {
  const past = [...seen].filter(([, s]) => s === 'past').map(([i]) => i)
  const hi = Math.min(...past)
  const below = [...seen].filter(([i, s]) => i < hi && (s === 'within' || s === 'undecided')).map(([i]) => i)
  const lo = Math.max(from, ...below)
  const open: number[] = []
  const skipped: number[] = []
  for (let i = lo + 1; i < hi; i++) (seen.get(i) === 'skip' ? skipped : open).push(i)
  if (!open.length) return skipped.length ? { only: [...skipped, hi], lo, hi } : { first: hi, lo, hi }
  const middle = (lo + hi) / 2
  const nearest = open.reduce((a, b) => (Math.abs(b - middle) < Math.abs(a - middle) ? b : a))
  return { probe: nearest, lo, hi }
}

/** The answer of a bisection of `commits` (the good end first, the bad end last). */
export async function bisectCommits(commits: readonly string[], rule: BisectRule): Promise<BisectAnswer> {
  const probes: BisectProbe[] = []
  const skipped = new Set<string>()
  const probe = async (role: ProbeRole, against: number, at: number) => {
    const c = await rule.compare(commits[at], commits[against], role)
    const { sign, cells, launches, engineMs, reason } = c
    probes.push({
      role,
      sha: commits[at],
      against: commits[against],
      sign,
      cells,
      launches,
      engineMs,
      ...(reason && { reason }),
    })
    if (sign === 'skip') skipped.add(commits[at])
    return c
  }
  const answer = (a: Said): BisectAnswer => ({
    ...a,
    ...(skipped.size && { skipped: commits.filter((s) => skipped.has(s)) }),
    probes,
    engineMs: probes.reduce((sum, p) => sum + p.engineMs, 0),
  })
  const last = commits.length - 1
  if (last < 1) return answer({ outcome: 'error', reason: 'the range holds one commit: good and bad are the same' })
  const ends = await probe('ends', 0, last)
  const endsSaid = endsOutcome(ends, commits)
  if (endsSaid) return answer(endsSaid)
  return answer(await steps(commits, rule, probe, ends))
}

/** What the ends' probe ends the bisection with, or undefined when the bad end is past the limit. */
function endsOutcome(ends: Comparison, commits: readonly string[]): Said | undefined {
  const [good, bad] = [short(commits[0]), short(commits.at(-1)!)]
  const why = ends.reason ? `: ${ends.reason}` : ''
  switch (ends.sign) {
    case 'past':
      return undefined
    case 'within':
      return {
        outcome: 'not-reproduced',
        reason: `the loss does not reproduce on this box: ${bad} measures within the limit of ${good}${why}`,
      }
    case 'undecided':
      return { outcome: 'undecided', reason: `${bad} against ${good} stayed undecided${why}` }
    case 'skip':
      return { outcome: 'error', reason: `the bad end ${bad} could not be measured${why}` }
    case 'error':
      return { outcome: 'error', reason: `the good end ${good} could not be measured${why}` }
  }
}

type Probe = (role: ProbeRole, against: number, at: number) => Promise<Comparison>

/** What the bisection ends with, before its probes are attached. */
type Said = Omit<BisectAnswer, 'probes' | 'engineMs'>

/** The halving's end: the first commit past the limit against the reference, or why it stopped. */
type Halved = { first: number; seen: ReadonlyMap<number, ProbeSign>; past: Comparison } | { stop: Said }

/** From the ends past the limit: halving, one step or several, and what is left, up to `maxSteps` steps. */
async function steps(commits: readonly string[], rule: BisectRule, probe: Probe, ends: Comparison): Promise<Said> {
  let top = ends
  const named: string[] = []
  const notes: string[] = []
  const last = commits.length - 1
  let from = 0
  for (let round = 0; round < (rule.maxSteps ?? MAX_STEPS); round++) {
    const found = await halve(commits, from, rule, probe, top)
    if ('stop' in found) return named.length ? { ...found.stop, culprit: named[0], steps: named } : found.stop
    const at = found.first
    const step = await oneStep(commits, { from, at, seen: found.seen, past: found.past }, rule, probe)
    if ('spread' in step) {
      const span = commits.slice(from + 1)
      return { outcome: 'steps', steps: [...named, ...span], reason: step.spread }
    }
    if (step.note) notes.push(step.note)
    named.push(commits[at])
    // The culprit's own step holds most of the loss from the reference to the bad end: no second step to look for.
    if (at === last || lossShare(step.step, top) >= MOST_OF_THE_LOSS) break
    if (rule.budgetLeftMs() <= 0) {
      notes.push(`bisect-budget spent before ${short(commits[last])} was measured against it: a later step is possible`)
      break
    }
    const rest = await probe('rest', at, last)
    top = rest
    if (rest.sign === 'undecided')
      notes.push(
        `${short(commits[last])} against ${short(commits[at])} stayed undecided: a second step between them is possible`,
      )
    if (rest.sign !== 'past') break
    from = at
  }
  const said = notes.length ? `; ${notes.join('; ')}` : ''
  return named.length === 1
    ? {
        outcome: 'culprit',
        culprit: named[0],
        steps: named,
        reason: `${short(named[0])} is the first commit worse than ${short(commits[0])} beyond the limit, and alone past it${said}`,
      }
    : {
        outcome: 'steps',
        culprit: named[0],
        steps: named,
        reason: `${named.length} commits each worse beyond the limit: ${named.map(short).join(', ')}${said}`,
      }
}

/** Halving against the reference `from` until the first commit past the limit, or why it stopped. */
async function halve(
  commits: readonly string[],
  from: number,
  rule: BisectRule,
  probe: Probe,
  top: Comparison,
): Promise<Halved> {
  const seen = new Map<number, ProbeSign>([[commits.length - 1, 'past']])
  const measured = new Map<number, Comparison>([[commits.length - 1, top]])
  for (let i = 0; i < commits.length; i++) {
    const next = nextProbe(from, seen)
    if ('first' in next) return { first: next.first, seen, past: measured.get(next.first)! }
    const range = { after: commits[next.lo], through: commits[next.hi] }
    if ('only' in next)
      return {
        stop: {
          outcome: 'budget',
          range,
          reason: `only skipped commits are left: the first past the limit is one of ${next.only.map((j) => short(commits[j])).join(', ')}`,
        },
      }
    if (rule.budgetLeftMs() <= 0)
      return {
        stop: {
          outcome: 'budget',
          range,
          reason: `bisect-budget spent: the first commit past the limit is after ${short(range.after)}, at or before ${short(range.through)}`,
        },
      }
    const c = await probe('search', from, next.probe)
    if (c.sign === 'error')
      return {
        stop: {
          outcome: 'error',
          range,
          reason: `${short(commits[from])} could not be measured again: ${c.reason ?? 'its launch failed'}`,
        },
      }
    seen.set(next.probe, c.sign)
    measured.set(next.probe, c)
  }
  throw new Error('bisection: the halving did not narrow the range')
}

/**
 * Whether the first commit past the limit is alone past it: against the commit before it, measured unless that one
 * is the reference (then the halving's probe already paired them). A step measured within the limit spreads the loss
 * over several commits (`spread`, why); any other sign names the commit, with a note when the step was not decided
 * past the limit (undecided: a loss between the limit and twice it often is, within `ab-max-launches`).
 */
async function oneStep(
  commits: readonly string[],
  p: { from: number; at: number; seen: ReadonlyMap<number, ProbeSign>; past: Comparison },
  rule: BisectRule,
  probe: Probe,
): Promise<{ step: Comparison; note?: string } | { spread: string }> {
  const { from, at } = p
  let before = at - 1
  while (before > from && p.seen.get(before) === 'skip') before--
  if (before === from) return { step: p.past }
  if (rule.budgetLeftMs() <= 0)
    return {
      step: p.past,
      note: `bisect-budget spent before ${short(commits[at])} was measured against ${short(commits[before])}`,
    }
  const step = await probe('step', before, at)
  const share = lossShare(step, p.past)
  if (step.sign === 'within' || (step.sign === 'undecided' && share < MOST_OF_THE_LOSS))
    return {
      spread: `no single commit: ${short(commits[at])} is the first worse than ${short(commits[from])} beyond the limit, but against ${short(commits[before])} it is within the limit: the loss built up over the range's commits, each within the limit`,
    }
  if (step.sign === 'past') return { step }
  const most =
    step.sign === 'undecided' ? `, ${Math.round(share * 100)} % of the loss against ${short(commits[from])}` : ''
  // A step that could not be paired (its reference failed) says nothing of the loss: the culprit's against the reference does.
  const said = step.sign === 'undecided' ? step : p.past
  return {
    step: said,
    note: `against ${short(commits[before])} it is ${step.sign}${most}${step.reason ? ` (${step.reason})` : ''}`,
  }
}

/**
 * An undecided step is the culprit's when it holds most of the loss: one step between the limit and twice it is
 * undecided about as often as not within `ab-max-launches`, and carries all of the loss its commit shows against the
 * reference; a creep's last step carries a third of it or less, but measured at 3 % launch noise it can show twice
 * that. At four fifths, bench/bisect.ts (500 ranges, launch-cv 3 %) names a wrong culprit in a creep 3.0 % of the
 * time (2.0 % when no undecided step names one, 7.2 % at one half) and finds a lone −7 % step in 18.6 % (16.8 %).
 */
const MOST_OF_THE_LOSS = 0.8

/**
 * The share of the loss `past` measured (the first commit past the limit against the reference) that `step` measured
 * too (that commit against the one before it): per cell and metric `past` regressed, the step's change for the worse
 * over past's, the largest; 0 when they share none.
 */
export function lossShare(step: Comparison, past: Comparison): number {
  let share = 0
  for (const [id, verdict] of Object.entries(past.cells))
    for (const m of Object.values(verdict.metrics)) {
      const own = m && step.cells[id]?.metrics[m.metric]
      if (!m || m.status !== 'regression' || !own || m.delta === null || own.delta === null || m.delta === 0) continue
      share = Math.max(share, own.delta / m.delta)
    }
  return share
}

const short = (sha: string) => sha.slice(0, 7)
