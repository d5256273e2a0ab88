// `paths:` globs of repository files, their validation, and which targets `select: changed` runs.
import { describe, expect, it } from 'vitest'
import { buildPlan } from '../../src/config/index.js'
import { matchesPaths, repoPath, selectChanged } from '../../src/config/paths.js'
import { ConfigError } from '../../src/core/errors.js'
import type { TargetPlan } from '../../src/core/plan.js'
import { TEST_ENGINES } from './engines.js'

function targets(
  extra: Record<string, Record<string, unknown>> = {},
  scenarios: Record<string, unknown> = { a: { 'input-tokens': 8, 'output-tokens': 8 } },
): TargetPlan[] {
  const base = {
    vllm: { engine: 'vllm', launch: 'scripts/vllm.sh', paths: ['scripts/vllm.sh', 'models/vllm/**'] },
    sglang: { engine: 'vllm', launch: 'scripts/sglang.sh', paths: ['scripts/sglang.sh'] },
    always: { engine: 'vllm', launch: 'x' },
  }
  const merged = Object.fromEntries(Object.entries(base).map(([k, v]) => [k, { ...v, ...extra[k] }]))
  return buildPlan(
    { version: 1, scenarios, targets: merged },
    { configPath: 'c.yml', resolvedPath: '/c.yml', engines: TEST_ENGINES },
  ).targets
}

function problems(paths: unknown): string[] {
  try {
    buildPlan(
      {
        version: 1,
        scenarios: { a: { 'input-tokens': 8, 'output-tokens': 8 } },
        targets: { t: { engine: 'vllm', launch: 'x', paths } },
      },
      { configPath: 'c.yml', resolvedPath: '/c.yml', engines: TEST_ENGINES },
    )
    return []
  } catch (error) {
    return (error as ConfigError).problems
  }
}

describe('paths globs', () => {
  it.each([
    ['scripts/sglang.sh', 'scripts/sglang.sh', true],
    ['scripts/sglang.sh', 'scripts/sglang.sh.bak', false],
    ['scripts/*.sh', 'scripts/vllm.sh', true],
    ['scripts/*.sh', 'scripts/sub/vllm.sh', false], // `*` stays within a directory
    ['models/**', 'models/a/b/c.json', true],
    ['models/**/config.json', 'models/config.json', true], // `**/` may match no directory
    ['models/**/config.json', 'models/x/y/config.json', true],
    ['models/**/config.json', 'models/xconfig.json', false],
    ['**/*.py', 'setup.py', true],
    ['**/*.py', 'src/a/b.py', true],
    ['Dockerfile', 'docker/Dockerfile', false],
    ['docker/Dockerfile.?', 'docker/Dockerfile.a', true],
  ])('%s on %s → %s', (glob, file, expected) => {
    expect(matchesPaths([glob], file)).toBe(expected)
  })

  it('names the field and the rule for a bad glob', () => {
    expect(problems([])).toEqual([
      'targets.t.paths: must list at least one glob (leave the key out to always run the target)',
    ])
    expect(problems('scripts/x.sh')[0]).toMatch(/^targets\.t\.paths: must be a list of globs \(got "scripts\/x\.sh"\)/)
    expect(problems(['/etc/passwd'])[0]).toBe(
      'targets.t.paths[0]: must be relative to the repository root (got "/etc/passwd")',
    )
    expect(problems(['a/../b'])[0]).toBe('targets.t.paths[0]: must not contain ., .. or empty segments (got "a/../b")')
    expect(problems(['a\\b'])[0]).toMatch(/^targets\.t\.paths\[0\]: uses \/ between directories/)
    expect(problems(['src/{a,b}.ts'])[0]).toMatch(/^targets\.t\.paths\[0\]: supports \*, \*\* and \? only/)
    expect(problems([''])[0]).toBe('targets.t.paths[0]: must not be empty')
    expect(problems([3])[0]).toMatch(/^targets\.t\.paths\[0\]: must be a glob of repository files/)
  })

  it('repository paths drop a leading ./ and use /', () => {
    expect(repoPath('./.github/llm-bench.yml')).toBe('.github/llm-bench.yml')
    expect(repoPath('ci\\bench.yml')).toBe('ci/bench.yml')
  })
})

describe('selectChanged', () => {
  const ids = (ts: readonly TargetPlan[]) => ts.map((t) => t.id)

  it('runs the targets a changed file matches and those without paths', () => {
    const s = selectChanged({
      targets: targets(),
      changed: ['models/vllm/qwen/config.json', 'README.md'],
      configFile: 'c.yml',
    })
    expect(ids(s.run)).toEqual(['vllm', 'always'])
    expect(ids(s.skipped)).toEqual(['sglang'])
    expect(s.reasons).toEqual({ vllm: 'paths changed: models/vllm/qwen/config.json', always: 'no paths: always runs' })
  })

  it('a matrix-file change re-runs only targets whose expanded definition changed (defaults included)', () => {
    const before = targets()
    const after = targets({ sglang: { rounds: 5 } })
    const s = selectChanged({ targets: after, changed: ['c.yml'], configFile: 'c.yml', base: before })
    expect(ids(s.run)).toEqual(['sglang', 'always'])
    expect(s.reasons.sglang).toBe('its definition in the matrix file changed')
    // A scenario's change reaches every target that runs it.
    const scenarios = { a: { 'input-tokens': 8, 'output-tokens': 16 } }
    expect(
      ids(
        selectChanged({ targets: targets({}, scenarios), changed: ['c.yml'], configFile: 'c.yml', base: before }).run,
      ),
    ).toEqual(['vllm', 'sglang', 'always'])
  })

  it('an unchanged matrix file at the base runs nothing more; a new target runs', () => {
    const before = targets().filter((t) => t.id !== 'sglang')
    const s = selectChanged({ targets: targets(), changed: ['c.yml'], configFile: 'c.yml', base: before })
    expect(ids(s.run)).toEqual(['sglang', 'always'])
    expect(s.reasons.sglang).toBe('new in the matrix file')
  })

  it('a matrix-file change whose base is unknown runs every target', () => {
    expect(ids(selectChanged({ targets: targets(), changed: ['c.yml'], configFile: 'c.yml' }).run)).toEqual([
      'vllm',
      'sglang',
      'always',
    ])
  })
})
