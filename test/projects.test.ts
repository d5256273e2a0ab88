/**
 * The fast project (vitest.config.ts) runs its files in parallel, so a file there must not depend on the machine being
 * quiet. Read from its text and from the test helpers it imports (test/ and harness/, followed through their
 * imports), a fast file must not:
 * - import node:child_process, or the runners of the bundle (test/helpers/action.ts, test/helpers/cli.ts);
 * - read the wall clock (Date.now, performance.now, process.hrtime): a figure taken on it is a wall-clock bound;
 * - start a paced server (startScheduledServer, startReplayServer, startSimServer), whose figures are wall-clock.
 * A process the code under test starts is refused as it starts (test/helpers/no-processes.ts). Such a file is a slow
 * one: name it `*.slow.test.ts` (test/projects.ts).
 */
import { execFile, execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { takeRefusals } from './helpers/no-processes.js'
import { ROOT } from './helpers/root.js'
import { ALL_TESTS, REAL_TESTS, SLOW_TESTS } from './projects.js'

const GLOB_PARTS: Record<string, string> = { '**/': '(?:.*/)?', '**': '.*', '*': '[^/]*' }

/** A glob of test/projects.ts as a regular expression: `**` spans folders, `*` stays within one. */
function globRegExp(glob: string): RegExp {
  const body = glob
    .split(/(\*\*\/|\*\*|\*)/)
    .map((part) => GLOB_PARTS[part] ?? part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('')
  return new RegExp(`^${body}$`)
}

const matches = (globs: string[], file: string) => globs.some((g) => globRegExp(g).test(file))
const isSlow = (file: string) => matches(SLOW_TESTS, file)
const isTest = (file: string) => matches([ALL_TESTS], file) && !matches([REAL_TESTS], file)

function testFiles(dir = 'test'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`
    if (e.isDirectory()) return testFiles(path)
    return isTest(path) ? [path] : []
  })
}

const RUNNERS = ['test/helpers/action.ts', 'test/helpers/cli.ts']
const RULES: [RegExp, string][] = [
  [/from ['"](node:)?child_process['"]|import\(['"](node:)?child_process['"]\)/, 'imports node:child_process'],
  [/\bDate\.now\(|\bperformance\.now\(|\bprocess\.hrtime\b/, 'reads the wall clock'],
  [/\b(startScheduledServer|startReplayServer|startSimServer)\(/, 'starts a paced server'],
]

const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1')

/** Local modules a file imports (relative paths, `.js` written for `.ts`), repository-relative. */
function localImports(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1])
  return specs.map((s) =>
    relative(ROOT, join(ROOT, dirname(file), s.replace(/\.js$/, '.ts')))
      .split(sep)
      .join('/'),
  )
}

/** Why `file` may not be fast, with the helper that makes it so; `read` returns a file's text, or undefined. */
function violations(file: string, read: (path: string) => string | undefined): string[] {
  const found: string[] = []
  const seen = new Set<string>()
  const visit = (path: string, via: string) => {
    if (seen.has(path)) return
    seen.add(path)
    const text = read(path)
    if (text === undefined) return
    const code = withoutComments(text)
    const where = via ? ` (through ${via})` : ''
    for (const [rule, what] of RULES) if (rule.test(code)) found.push(`${what}${where}`)
    for (const next of localImports(path, code)) {
      if (RUNNERS.includes(next)) found.push(`imports ${next}${where}`)
      else if (/^(test|harness)\//.test(next)) visit(next, via ? `${via} → ${next}` : next)
    }
  }
  visit(file, '')
  return found
}

const readRepo = (path: string) => (existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : undefined)

describe('the fast project', () => {
  it('holds no file that starts processes, runs the bundle, reads the clock or starts a paced server', () => {
    // This file names every refused thing to test the rule, and proves the guard by starting processes it refuses.
    const fast = testFiles().filter((f) => !isSlow(f) && f !== 'test/projects.test.ts')
    expect(fast.length).toBeGreaterThan(100)
    const problems = fast.flatMap((f) => violations(f, readRepo).map((v) => `${f}: ${v}`))
    expect(problems, `${problems.join('\n')}\nrename each *.slow.test.ts`).toEqual([])
  })

  it.each([
    ['test/x/a.test.ts', "import { spawn } from 'node:child_process'", 'imports node:child_process'],
    ['test/x/a.test.ts', "import { runCli } from '../helpers/cli.js'", 'imports test/helpers/cli.ts'],
    ['test/a.test.ts', "import { ROOT, runAction } from './helpers/action.js'", 'imports test/helpers/action.ts'],
    ['test/x/a.test.ts', 'const t0 = performance.now()', 'reads the wall clock'],
    ['test/x/a.test.ts', 'expect(Date.now() - started).toBeLessThan(200)', 'reads the wall clock'],
    ['test/x/a.test.ts', 'await startSimServer({ profile })', 'starts a paced server'],
  ])('refuses %s with `%s`', (file, text, why) => {
    expect(violations(file, (p) => (p === file ? text : undefined))).toEqual([why])
  })

  it('follows test helpers: a helper that imports a runner or reads the clock makes its importer slow', () => {
    const files: Record<string, string> = {
      'test/x/a.test.ts': "import { go } from '../helpers/h.js'",
      'test/helpers/h.ts': "import { CLI } from './cli.js'\nimport { at } from '../../harness/clock.js'",
      'harness/clock.ts': 'export const at = () => performance.now()',
    }
    expect(violations('test/x/a.test.ts', (p) => files[p])).toEqual([
      'imports test/helpers/cli.ts (through test/helpers/h.ts)',
      'reads the wall clock (through test/helpers/h.ts → harness/clock.ts)',
    ])
  })

  it('takes the slow globs as the config does', () => {
    expect(isSlow('test/e2e/gate.test.ts')).toBe(true)
    expect(isSlow('test/cli/run.test.ts')).toBe(true)
    expect(isSlow('test/bench/timing.slow.test.ts')).toBe(true)
    expect(isSlow('test/request-body.slow.test.ts')).toBe(true)
    expect(isSlow('test/bench/timing.test.ts')).toBe(false)
    expect(isTest('test/real/prereq.test.ts')).toBe(false)
  })

  it('refuses every way of starting a process, caught or not, and names the program', async () => {
    const refused = /fast project: \w+\("true"\) starts a process/
    expect(() => execFileSync('true')).toThrow(refused)
    expect(() => spawn('true')).toThrow(refused)
    await expect(promisify(execFile)('true')).rejects.toThrow(refused)
    expect(takeRefusals()).toHaveLength(3)
  })
})
