/**
 * `prepareBaseArm` on real git checkouts: the base commit's matrix file expanded with every launch in the worktree
 * (a container target runs the base's image, a relative sim profile is the base's copy), and each reason the base
 * arm cannot be had, in words the report shows.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadPlan } from '../../src/config/index.js'
import { prepareBaseArm } from '../../src/run/base-arm.js'
import type { RunContext } from '../../src/run/context.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { fullClone, makeOrigin, type OriginFiles } from '../helpers/git-origin.js'
import { profileJson } from '../sim/profile-file.js'

const PROFILE = profileJson('p')

function matrix(image: string): string {
  return [
    'version: 1',
    'scenarios:',
    '  s: { input-tokens: 8, output-tokens: 8, concurrency: 1 }',
    'targets:',
    '  boxed:',
    '    engine: vllm',
    `    container: { image: "${image}", command: serve }`,
    '  simmed:',
    '    engine: sim',
    '    profile: profiles/p.json',
    '',
  ].join('\n')
}

async function prepared(files: OriginFiles, context: Partial<RunContext> = {}) {
  const origin = makeOrigin('lbg-base-arm-', { ...files, base: { 'profiles/p.json': PROFILE, ...files.base } })
  const checkout = fullClone(origin)
  const plan = await loadPlan(join(checkout, 'bench.yml'), { workdir: checkout })
  const arm = await prepareBaseArm({
    plan,
    context: {
      event: 'pull_request',
      sha: origin.head,
      ref: 'refs/pull/1/merge',
      runUrl: '',
      baseSha: origin.base,
      ...context,
    },
    cwd: checkout,
    tempDir: await mkdtemp(join(tmpdir(), 'lbg-base-arm-temp-')),
    signal: new AbortController().signal,
    log: memoryLogger(),
  })
  return { arm, origin, checkout }
}

describe('prepareBaseArm', () => {
  it("expands the base's matrix file with its image and its own copy of a relative profile", async () => {
    const { arm, checkout } = await prepared({
      base: { 'bench.yml': matrix('registry.example/vllm:0.11'), 'profiles/p.json': PROFILE },
      head: { 'bench.yml': matrix('registry.example/vllm:0.12'), 'README.md': 'x\n' },
    })
    if ('unavailable' in arm) throw new Error(arm.unavailable)
    try {
      const boxed = arm.plan.targets.find((t) => t.id === 'boxed')!
      const simmed = arm.plan.targets.find((t) => t.id === 'simmed')!
      expect(boxed.container?.image).toBe('registry.example/vllm:0.11')
      expect(boxed.workdir).toBe(arm.worktree)
      expect(simmed.launch).toContain(join(arm.worktree, 'profiles/p.json'))
      expect(simmed.launch).not.toContain(checkout)
      expect(arm.changed?.sort()).toEqual(['README.md', 'bench.yml'])
    } finally {
      await arm.checkout.remove()
    }
  })

  it.each<[string, OriginFiles, Partial<RunContext>, RegExp]>([
    [
      'no base commit in the event',
      { base: { 'bench.yml': matrix('i:1') }, head: {} },
      { baseSha: undefined, event: 'push' },
      /^the push run names no base commit to measure \(a pull request's base; on the CLI, --base REV\)$/,
    ],
    [
      'a pull request from a fork',
      { base: { 'bench.yml': matrix('i:1') }, head: {} },
      { fork: 'someone/r' },
      /^the pull request comes from the fork someone\/r; /,
    ],
    [
      'a matrix file the base commit lacks',
      { base: { 'other.yml': 'x\n' }, head: { 'bench.yml': matrix('i:1') } },
      {},
      /^bench\.yml does not exist at the base commit [0-9a-f]{7}$/,
    ],
    [
      'a base matrix file that does not validate',
      { base: { 'bench.yml': 'version: 1\ntargets: {}\n' }, head: { 'bench.yml': matrix('i:1') } },
      {},
      /^bench\.yml at the base commit [0-9a-f]{7} is not a valid matrix file \(/,
    ],
  ])('%s: unavailable, said in one line', async (_, files, context, reason) => {
    const { arm } = await prepared(files, context)
    expect('unavailable' in arm && arm.unavailable).toMatch(reason)
  })
})
