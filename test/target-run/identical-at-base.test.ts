/**
 * identicalAtBase: a target is left out of the A/B only when both arms would run the same thing — its expanded
 * definition equal at base and head (the base's paths seen from the worktree count as the same files) and no
 * file its `paths` match changed. Whatever cannot be shown identical is tested.
 */
import { describe, expect, it } from 'vitest'
import type { ScenarioPlan, TargetPlan } from '../../src/core/plan.js'
import { identicalAtBase, type BaseArm } from '../../src/target-run/same-box.js'
import { targetPlan } from '../server/target.js'

const SHA = 'abcdef1234567890abcdef1234567890abcdef12'
const REPO = '/home/runner/work/serving/serving'
const WORKTREE = '/home/runner/work/_temp/llm-bench-base-x1/tree'
const IDENTICAL = `sim-fp8 is identical at the base commit abcdef1 (its definition and the files its paths match): both arms would run the same thing` // prettier-ignore

const CHAT: ScenarioPlan = { id: 'chat-1k', inputTokens: 1024, outputTokens: 128, concurrency: 8, requests: 8 }
const LONG: ScenarioPlan = { id: 'long-8k', inputTokens: 8192, outputTokens: 256, concurrency: 1, requests: 1 }

/** The target as a checkout at `root` expands it: its launch and profile name that checkout's files. */
function at(root: string, overrides: Partial<TargetPlan> = {}): TargetPlan {
  return targetPlan({
    id: 'sim-fp8',
    sourceKey: 'sim-{quant}',
    engine: 'sim',
    launch: `python ${root}/scripts/serve.py --config ${root}/configs/fp8.yml --port {port}`,
    engineOptions: { profile: `${root}/profiles/fast.json` },
    paths: ['scripts/**', 'configs/*.yml'],
    scenarios: [CHAT],
    workdir: root,
    ...overrides,
  })
}

function arm(changed: string[] | undefined): BaseArm {
  return {
    sha: SHA,
    plan: { configPath: '.github/llm-bench.yml', resolvedPath: `${WORKTREE}/.github/llm-bench.yml`, targets: [], cells: [] }, // prettier-ignore
    repoRoot: REPO,
    worktree: WORKTREE,
    ...(changed && { changed }),
  }
}

describe('identicalAtBase', () => {
  it('says why when the definition is the same and no changed file matches its paths', () => {
    // The base's launch names the worktree's files where the head's names the checkout's: the same files.
    expect(at(WORKTREE).launch).not.toBe(at(REPO).launch)
    expect(identicalAtBase(at(REPO), at(WORKTREE), arm(['README.md', 'src/app.ts']))).toBe(IDENTICAL)
    expect(identicalAtBase(at(REPO), at(WORKTREE), arm([]))).toBe(IDENTICAL)
  })

  it.each([
    ['a changed file its paths match', ['README.md', 'scripts/lib/util.py']],
    ['a changed config its paths match', ['configs/fp8.yml']],
  ])('tests it when %s', (_, changed) => {
    expect(identicalAtBase(at(REPO), at(WORKTREE), arm(changed))).toBeUndefined()
  })

  it('tests a target without paths: it does not say what it depends on', () => {
    const head = at(REPO, { paths: undefined })
    expect(identicalAtBase(head, at(WORKTREE, { paths: undefined }), arm(['README.md']))).toBeUndefined()
  })

  it('tests it when git could not list the changed files', () => {
    expect(identicalAtBase(at(REPO), at(WORKTREE), arm(undefined))).toBeUndefined()
  })

  it.each<[string, Partial<TargetPlan>]>([
    ['a scenario of another size', { scenarios: [{ ...CHAT, concurrency: 4 }] }],
    ['another launch flag', { launch: `python ${WORKTREE}/scripts/serve.py --config ${WORKTREE}/configs/fp8.yml --port {port} --eager` }], // prettier-ignore
    ['another profile', { engineOptions: { profile: `${WORKTREE}/profiles/slow.json` } }],
    ['other settings', { settings: { ...at(WORKTREE).settings, rounds: 5 } }],
    ['another gate', { gate: { decode: { maxRegression: 0.1, stat: 'mean' } } }],
    ['other paths', { paths: ['scripts/**'] }],
    ['a path outside the worktree', { engineOptions: { profile: '/opt/profiles/fast.json' } }],
  ])('tests it when the base differs by %s', (_, change) => {
    expect(identicalAtBase(at(REPO), at(WORKTREE, change), arm(['README.md']))).toBeUndefined()
  })

  it('tests it when the base lacks one of its scenarios', () => {
    const head = at(REPO, { scenarios: [CHAT, LONG] })
    expect(identicalAtBase(head, at(WORKTREE), arm(['README.md']))).toBeUndefined()
  })

  it("compares only the scenarios the run selected: the base's others do not count", () => {
    // The head's plan kept chat-1k (`only`, `shard`); the base's plan, expanded without them, has both.
    const base = at(WORKTREE, { scenarios: [LONG, CHAT] })
    expect(identicalAtBase(at(REPO), base, arm(['README.md']))).toBe(IDENTICAL)
  })

  it('ignores the key the target came from and the directory its launch runs in', () => {
    const base = at(WORKTREE, { sourceKey: 'sim-fp8', workdir: `${WORKTREE}/bench` })
    expect(identicalAtBase(at(REPO), base, arm(['README.md']))).toBe(IDENTICAL)
  })
})
