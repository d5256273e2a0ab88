import { describe, expect, it } from 'vitest'
import { DEFAULTS, parseInputs } from '../src/config/inputs.js'
import { baselineWriteRefusal, resolveBehaviour, type RunContext } from '../src/run/context.js'
import { ConfigError } from '../src/core/errors.js'

const from = (inputs: Record<string, string>) => (name: string) => inputs[name] ?? ''

describe('parseInputs', () => {
  it('applies the action.yml defaults to unset inputs', () => {
    expect(parseInputs(from({}))).toEqual(DEFAULTS)
  })

  it('reads every input once, trimmed', () => {
    const options = parseInputs(
      from({
        config: ' bench.yml ',
        mode: 'merge',
        only: '*-nvfp4-*/*',
        'fail-on-regression': 'false',
        'dry-run': 'True',
        shard: '2/3',
        hardware: 'nvidia-gb10',
        select: 'changed',
      }),
    )
    expect(options).toMatchObject({
      select: 'changed',
      config: 'bench.yml',
      mode: 'merge',
      only: '*-nvfp4-*/*',
      failOnRegression: false,
      dryRun: true,
      shard: '2/3',
      hardware: 'nvidia-gb10',
    })
  })

  it.each([
    [{ mode: 'gate' }, 'input mode: "gate" is not one of auto, compare, update-baseline, run, merge'],
    [{ comment: 'sometimes' }, 'input comment: "sometimes" is not one of always, on-regression, never'],
    [{ 'fail-on-error': 'yes' }, 'input fail-on-error: "yes" is not a boolean (true or false)'],
    [{ 'dry-run': '1' }, 'input dry-run: "1" is not a boolean (true or false)'],
    [{ shard: '2' }, 'input shard: "2" is not i/n with 1 ≤ i ≤ n ≤ 256 (e.g. 1/2)'],
    // The plan's own rule, applied to the input before the matrix file is read.
    [{ shard: '3/2' }, 'input shard: "3/2" is not i/n with 1 ≤ i ≤ n ≤ 256 (e.g. 1/2)'],
    [{ hardware: '../main' }, 'input hardware: "../main" may only contain letters'],
    [{ select: 'touched' }, 'input select: "touched" is not one of all, changed'],
  ])('rejects %o naming the input', (inputs, message) => {
    expect(() => parseInputs(from(inputs))).toThrow(message)
  })

  it('lists every bad input in one error', () => {
    try {
      parseInputs(from({ mode: 'x', comment: 'y' }))
      expect.unreachable()
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(2)
    }
  })
})

describe('resolveBehaviour (SPEC §7)', () => {
  const ctx = (event: string, ref: string, prNumber?: number): RunContext => ({
    event,
    ref,
    sha: 'abc',
    runUrl: '',
    defaultBranch: 'main',
    prNumber,
  })
  it.each([
    [
      'auto',
      ctx('pull_request', 'refs/pull/7/merge', 7),
      { name: 'compare', measure: true, compare: true, comment: true, writeBaseline: false },
    ],
    [
      'auto',
      ctx('push', 'refs/heads/main'),
      { name: 'update-baseline', measure: true, compare: true, comment: false, writeBaseline: true },
    ],
    ['auto', ctx('schedule', 'refs/heads/main'), { name: 'update-baseline', writeBaseline: true }],
    ['auto', ctx('push', 'refs/heads/feature'), { name: 'compare', writeBaseline: false, comment: false }],
    [
      'auto',
      ctx('workflow_dispatch', 'refs/heads/main'),
      { name: 'compare', compare: true, writeBaseline: false, comment: false },
    ],
    ['update-baseline', ctx('workflow_dispatch', 'refs/heads/main'), { name: 'update-baseline', writeBaseline: true }],
    [
      'run',
      ctx('pull_request', 'refs/pull/7/merge', 7),
      { name: 'run', compare: false, comment: false, writeBaseline: false },
    ],
    [
      'merge',
      ctx('pull_request', 'refs/pull/7/merge', 7),
      { name: 'merge', measure: false, compare: true, comment: true },
    ],
    ['merge', ctx('push', 'refs/heads/main'), { name: 'merge', measure: false, writeBaseline: true }],
    // A schedule's payload has no repository: the run is on the default branch, whatever it is called.
    [
      'auto',
      { ...ctx('schedule', 'refs/heads/master'), defaultBranch: undefined },
      { name: 'update-baseline', writeBaseline: true },
    ],
    ['auto', { ...ctx('push', 'refs/heads/master'), defaultBranch: undefined }, { name: 'compare' }],
  ] as const)('%s on %o', (mode, context, expected) => {
    expect(resolveBehaviour(mode, context)).toMatchObject(expected)
  })
})

describe("baselineWriteRefusal: update-baseline writes main's history from main only, and needs a store", () => {
  const ctx = (event: string, ref: string, defaultBranch = 'main'): RunContext => ({
    event,
    ref,
    sha: 'abc',
    runUrl: '',
    defaultBranch,
  })
  const refusal = (mode: 'update-baseline' | 'auto' | 'merge' | 'compare', c: RunContext, store?: 'branch' | 'file') =>
    baselineWriteRefusal(resolveBehaviour(mode, c), c, store)
  it.each([
    ['update-baseline', ctx('workflow_dispatch', 'refs/heads/main'), 'branch', undefined],
    ['update-baseline', ctx('workflow_dispatch', 'refs/heads/trunk', 'trunk'), 'branch', undefined],
    ['update-baseline', { ...ctx('schedule', 'refs/heads/master'), defaultBranch: undefined }, 'branch', undefined],
    [
      'update-baseline',
      ctx('workflow_dispatch', 'refs/heads/feature'),
      'branch',
      'mode update-baseline writes the baseline and history of the default branch (main), but this run is on refs/heads/feature: refused',
    ],
    [
      'update-baseline',
      ctx('pull_request', 'refs/pull/7/merge'),
      'branch',
      'this run is on refs/pull/7/merge: refused',
    ],
    ['update-baseline', ctx('push', 'refs/tags/v1.0'), 'branch', 'this run is on refs/tags/v1.0: refused'],
    ['update-baseline', ctx('push', 'refs/heads/main'), undefined, 'there is no GitHub token or repository'],
    ['auto', ctx('push', 'refs/heads/main'), undefined, 'mode update-baseline writes the baseline to the data branch'],
    ['merge', ctx('push', 'refs/heads/main'), undefined, 'mode merge writes the baseline to the data branch'],
    // baseline-file is read-only by design: the write is skipped, not refused.
    ['update-baseline', ctx('push', 'refs/heads/feature'), 'file', undefined],
    ['auto', ctx('push', 'refs/heads/feature'), undefined, undefined],
    ['compare', ctx('push', 'refs/heads/feature'), undefined, undefined],
  ] as const)('%s on %o with store %s', (mode, c, store, says) => {
    const refused = refusal(mode, c, store)
    if (says === undefined) expect(refused).toBeUndefined()
    else expect(refused).toContain(says)
  })
})
