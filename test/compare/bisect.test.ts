/**
 * The bisection rule (compare/bisect.ts) against probes whose sign follows from known levels: a commit is `past`
 * when its level is below the one it is paired with by more than the limit (5 %), `within` otherwise. The levels
 * are the cases the rule must name: one step, two steps, a creep of steps each within the limit, no loss; commits
 * that do not launch; a budget that runs out.
 */
import { describe, expect, it } from 'vitest'
import { bisectCommits, nextProbe, type Comparison } from '../../src/compare/index.js'
import type { ProbeRole } from '../../src/core/bisect-record.js'
import type { CellVerdict } from '../../src/core/verdicts.js'

const LIMIT = 0.05
const shas = (n: number) => Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(2, '0')}${'0'.repeat(38)}`)

interface Box {
  /** Level of each commit, the good end's 1. */
  levels: number[]
  /** Commits (indices) whose engine does not launch. */
  broken?: Set<number>
  /** Engine time per probe, ms. */
  probeMs?: number
  budgetMs?: number
  /** Step probes stay undecided: those whose loss is between the limit and twice it (`band`), or every one (`all`). */
  undecidedSteps?: 'band' | 'all'
}

/** The rule run over `box`: its answer, and each probe as (role, at, against) indices. */
async function bisect(box: Box) {
  const commits = shas(box.levels.length)
  const index = (sha: string) => commits.indexOf(sha)
  const calls: Array<{ role: ProbeRole; at: number; against: number }> = []
  let spent = 0
  const answer = await bisectCommits(commits, {
    budgetLeftMs: () => (box.budgetMs ?? Infinity) - spent,
    async compare(sha, against, role): Promise<Comparison> {
      const [at, ref] = [index(sha), index(against)]
      calls.push({ role, at, against: ref })
      spent += box.probeMs ?? 1
      const base = { cells: {}, launches: 2, engineMs: box.probeMs ?? 1 }
      if (box.broken?.has(ref)) return { ...base, sign: 'error', reason: 'reference did not launch' }
      if (box.broken?.has(at)) return { ...base, sign: 'skip', reason: 'exited at launch' }
      const change = box.levels[at] / box.levels[ref] - 1
      const sign = change < -LIMIT ? 'past' : 'within'
      const cells = { 'sim/short': decodeVerdict(sign, box.levels[at], box.levels[ref]) }
      const band = change < -LIMIT && change > -2 * LIMIT
      if (role === 'step' && (box.undecidedSteps === 'all' || (box.undecidedSteps === 'band' && band)))
        return { ...base, cells, sign: 'undecided', reason: 'still undecided after 6 launches per arm' }
      return { ...base, cells, sign }
    },
  })
  return { answer, calls, commits }
}

/** A probe's verdict on one cell: its decode change, a regression when past the limit. */
function decodeVerdict(sign: 'past' | 'within', current: number, baseline: number): CellVerdict {
  const status = sign === 'past' ? 'regression' : 'pass'
  const delta = current / baseline - 1
  return {
    status,
    metrics: { decode: { status, metric: 'decode', stat: 'mean', current, baseline, delta, reason: '' } },
  }
}

/** Levels of `n` commits with a loss of `loss` at each index of `at`. */
function steps(n: number, at: Record<number, number>): number[] {
  const levels = [1]
  for (let i = 1; i < n; i++) levels.push(levels[i - 1] * (1 - (at[i] ?? 0)))
  return levels
}

describe('bisection to the commit', () => {
  it('12 commits, commit 7 12 % slower: commit 7, in at most ⌈log2 11⌉ + 1 probes besides the ends', async () => {
    const { answer, calls, commits } = await bisect({ levels: steps(12, { 6: 0.12 }) })
    expect(answer.outcome).toBe('culprit')
    expect(answer.culprit).toBe(commits[6])
    expect(answer.steps).toEqual([commits[6]])
    expect(calls[0]).toEqual({ role: 'ends', at: 11, against: 0 })
    const search = calls.filter((c) => c.role === 'search')
    expect(search.length).toBeLessThanOrEqual(Math.ceil(Math.log2(11)))
    // Every halving probe is against the good end; the step pairs commit 7 with commit 6; what is left, 12 with 7.
    expect(search.every((c) => c.against === 0)).toBe(true)
    expect(calls.filter((c) => c.role === 'step')).toEqual([{ role: 'step', at: 6, against: 5 }])
    // The step holds the whole loss of the ends: no second step is looked for, so no probe of what is left.
    expect(calls.filter((c) => c.role === 'rest')).toEqual([])
    expect(calls.length - 1).toBeLessThanOrEqual(Math.ceil(Math.log2(11)) + 1)
    // Commits measured besides the ends: the halving's, nothing new after it.
    const measured = new Set(calls.filter((c) => c.role !== 'ends').flatMap((c) => [c.at, c.against]))
    measured.delete(0)
    measured.delete(11)
    expect(measured.size).toBeLessThanOrEqual(Math.ceil(Math.log2(11)) + 1)
    expect(answer.probes).toHaveLength(calls.length)
    expect(answer.engineMs).toBe(calls.length)
  })

  it('a step at every position of the range is found, in at most ⌈log2 n⌉ halving probes', async () => {
    for (const n of [2, 3, 5, 12, 33]) {
      for (let at = 1; at < n; at++) {
        const { answer, calls, commits } = await bisect({ levels: steps(n, { [at]: 0.2 }) })
        expect(answer.culprit, `n ${n}, step at ${at}`).toBe(commits[at])
        expect(calls.filter((c) => c.role === 'search').length).toBeLessThanOrEqual(Math.ceil(Math.log2(n - 1)))
      }
    }
  })

  it('a step between the limit and twice it, its own probe undecided: the commit is named, and the reason says so', async () => {
    const { answer, commits } = await bisect({ levels: steps(12, { 5: 0.07 }), undecidedSteps: 'band' })
    expect(answer.outcome).toBe('culprit')
    expect(answer.culprit).toBe(commits[5])
    expect(answer.reason).toContain(`against ${commits[4].slice(0, 7)} it is undecided, 100 % of the loss against`)
  })

  it('a creep whose last step stays undecided: a third of the loss is no culprit, the span is named', async () => {
    const { answer, commits } = await bisect({
      levels: steps(5, { 1: 0.025, 2: 0.025, 3: 0.025, 4: 0.025 }),
      undecidedSteps: 'all',
    })
    expect(answer.outcome).toBe('steps')
    expect(answer.culprit).toBeUndefined()
    expect(answer.steps).toEqual(commits.slice(1))
  })

  it('two steps past the limit: both named, the first as the culprit', async () => {
    const { answer, commits, calls } = await bisect({ levels: steps(12, { 3: 0.08, 9: 0.1 }) })
    expect(answer.outcome).toBe('steps')
    expect(answer.steps).toEqual([commits[3], commits[9]])
    expect(answer.culprit).toBe(commits[3])
    expect(answer.reason).toContain('2 commits each worse beyond the limit')
    // The first step holds half the ends' loss: what is left is measured, and bisected again from the first; the
    // second holds all that was left, so nothing more is.
    expect(calls.filter((c) => c.role === 'rest').map((c) => [c.at, c.against])).toEqual([[11, 3]])
  })

  it('four commits each 2.5 % slower: no single culprit, the span named as steps', async () => {
    const { answer, commits } = await bisect({ levels: steps(5, { 1: 0.025, 2: 0.025, 3: 0.025, 4: 0.025 }) })
    expect(answer.outcome).toBe('steps')
    expect(answer.culprit).toBeUndefined()
    expect(answer.steps).toEqual(commits.slice(1))
    expect(answer.reason).toMatch(/no single commit: .* within the limit: the loss built up/)
  })

  it('ends that measure the same: no culprit, does not reproduce, one probe', async () => {
    const { answer, calls } = await bisect({ levels: steps(12, { 4: 0.02 }) })
    expect(answer.outcome).toBe('not-reproduced')
    expect(answer.culprit).toBeUndefined()
    expect(answer.reason).toContain('does not reproduce on this box')
    expect(calls).toHaveLength(1)
  })

  it('a commit whose engine does not launch is skipped, and the culprit still found', async () => {
    for (const broken of [2, 4, 7, 8, 10]) {
      const { answer, commits } = await bisect({ levels: steps(12, { 6: 0.12 }), broken: new Set([broken]) })
      expect(answer.culprit, `broken ${broken}`).toBe(commits[6])
      expect(answer.skipped ?? []).toEqual(answer.probes.some((p) => p.sign === 'skip') ? [commits[broken]] : [])
    }
  })

  it('only skipped commits left: the range is the answer, as git bisect says', async () => {
    // The commit before the culprit does not launch: the first past the limit is it or the culprit.
    const { answer, commits } = await bisect({ levels: steps(12, { 6: 0.12 }), broken: new Set([5]) })
    expect(answer.outcome).toBe('budget')
    expect(answer.culprit).toBeUndefined()
    expect(answer.range).toEqual({ after: commits[4], through: commits[6] })
    expect(answer.reason).toContain(
      `only skipped commits are left: the first past the limit is one of ${commits[5].slice(0, 7)}, ${commits[6].slice(0, 7)}`,
    )
  })

  it('the budget spent: the narrowed range is the answer', async () => {
    const { answer, commits } = await bisect({ levels: steps(33, { 20: 0.12 }), probeMs: 10, budgetMs: 30 })
    expect(answer.outcome).toBe('budget')
    const [after, through] = [commits.indexOf(answer.range!.after), commits.indexOf(answer.range!.through)]
    expect(after).toBeLessThan(20)
    expect(through).toBeGreaterThanOrEqual(20)
    // Three probes (the ends, two halvings): the range is down to a quarter of the commits.
    expect(through - after).toBeLessThanOrEqual(9)
    expect(answer.reason).toContain('bisect-budget spent')
  })

  it('the bad end does not launch: an error, nothing halved', async () => {
    const { answer, calls } = await bisect({ levels: steps(6, { 2: 0.2 }), broken: new Set([5]) })
    expect(answer.outcome).toBe('error')
    expect(answer.reason).toContain('the bad end')
    expect(calls).toHaveLength(1)
  })
})

describe('nextProbe', () => {
  it('narrows to the range between the last within and the first past, and never widens on a noisy sign', () => {
    expect(nextProbe(0, new Map([[10, 'past']]))).toEqual({ probe: 5, lo: 0, hi: 10 })
    expect(
      nextProbe(
        0,
        new Map([
          [10, 'past'],
          [5, 'within'],
        ]),
      ),
    ).toEqual({ probe: 7, lo: 5, hi: 10 })
    // A past below a within (noise): the range is below the past, and the within above it is ignored.
    expect(
      nextProbe(
        0,
        new Map([
          [10, 'past'],
          [3, 'past'],
          [7, 'within'],
        ]),
      ),
    ).toEqual({ probe: 1, lo: 0, hi: 3 })
    expect(
      nextProbe(
        0,
        new Map([
          [10, 'past'],
          [9, 'within'],
        ]),
      ),
    ).toEqual({ first: 10, lo: 9, hi: 10 })
    expect(
      nextProbe(
        4,
        new Map([
          [10, 'past'],
          [7, 'skip'],
        ]),
      ),
    ).toEqual({ probe: 6, lo: 4, hi: 10 })
    expect(
      nextProbe(
        6,
        new Map([
          [8, 'past'],
          [7, 'skip'],
        ]),
      ),
    ).toEqual({ only: [7, 8], lo: 6, hi: 8 })
  })
})
