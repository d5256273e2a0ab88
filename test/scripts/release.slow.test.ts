/**
 * The release scripts, run as the release workflow and CI run them, in scratch git checkouts:
 * - scripts/check-dist.sh passes when a rebuild reproduces the committed dist/ and schema/, and fails naming the file
 *   when the committed bundle is stale (a source changed without a rebuild), when the build writes a file nobody
 *   committed, or when the build wrote no dist/ at all.
 * - scripts/release-notes.sh prints a tag's CHANGELOG section and refuses a tag without one.
 * - scripts/move-major-tag.sh moves v1 forward only: to a newer release, never back to a patch of an older line,
 *   never to a pre-release.
 * The scratch checkout's build is a stand-in for `npm run bundle && npm run schema`: it writes dist/ and schema/
 * from src/, so a changed source gives a changed bundle as the real build does.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/root.js'

const run = promisify(execFile)
const CHECK = join(ROOT, 'scripts/check-dist.sh')
const NOTES = join(ROOT, 'scripts/release-notes.sh')
const MOVE = join(ROOT, 'scripts/move-major-tag.sh')

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

/** Runs a command to its end; a non-zero exit is an outcome, not a throw. */
async function sh(cwd: string, file: string, args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

const git = async (cwd: string, ...args: string[]) => {
  const out = await sh(cwd, 'git', [
    '-c',
    'user.name=t',
    '-c',
    'user.email=t@t',
    '-c',
    'init.defaultBranch=main',
    ...args,
  ])
  if (out.code !== 0) throw new Error(`git ${args.join(' ')}: ${out.stderr}`)
  return out.stdout.trim()
}

const scratch: string[] = []
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-release-'))
  scratch.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The stand-in build: dist/index.js and schema/config.json made from src/main.js. */
function build(repo: string): void {
  const source = readFileSync(join(repo, 'src/main.js'), 'utf8')
  mkdirSync(join(repo, 'dist'), { recursive: true })
  mkdirSync(join(repo, 'schema'), { recursive: true })
  writeFileSync(join(repo, 'dist/index.js'), `// bundled\n${source}`)
  writeFileSync(join(repo, 'schema/config.json'), JSON.stringify({ lines: source.split('\n').length }) + '\n')
}

/** A checkout whose committed dist/ and schema/ were built from its committed src/. */
async function builtCheckout(): Promise<string> {
  const repo = folder()
  await git(repo, 'init', '-q')
  mkdirSync(join(repo, 'src'))
  writeFileSync(join(repo, 'src/main.js'), 'export const answer = 42\n')
  build(repo)
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-q', '-m', 'v1')
  return repo
}

describe('scripts/check-dist.sh', () => {
  it('passes when the rebuild reproduces the committed bundle and schema', async () => {
    const repo = await builtCheckout()
    build(repo)
    const out = await sh(join(repo, 'src'), 'bash', [CHECK])
    expect(out).toMatchObject({ code: 0, stderr: '' })
    expect(out.stdout).toContain('dist schema match the sources')
  })

  it('fails naming the file when a source changed and the committed bundle was not rebuilt', async () => {
    const repo = await builtCheckout()
    writeFileSync(join(repo, 'src/main.js'), 'export const answer = 43\n')
    await git(repo, 'commit', '-q', '-am', 'change the source, forget the bundle')
    build(repo)
    const out = await sh(repo, 'bash', [CHECK])
    expect(out.code).toBe(1)
    expect(out.stderr).toMatch(/^ M dist\/index\.js$/m)
    expect(out.stderr).toContain('Rebuild them')
    expect(out.stdout).toBe('')
  })

  it('fails on a file the build writes that is not committed, and on a build that wrote no dist/', async () => {
    const repo = await builtCheckout()
    build(repo)
    writeFileSync(join(repo, 'dist/chunk.js'), 'export {}\n')
    const extra = await sh(repo, 'bash', [CHECK])
    expect(extra.code).toBe(1)
    expect(extra.stderr).toMatch(/^\?\? dist\/chunk\.js$/m)

    rmSync(join(repo, 'dist'), { recursive: true })
    const none = await sh(repo, 'bash', [CHECK])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('dist/ does not exist')
  })

  it('checks only the folders it is given, and refuses to run outside a checkout', async () => {
    const repo = await builtCheckout()
    writeFileSync(join(repo, 'schema/config.json'), '{}\n')
    expect((await sh(repo, 'bash', [CHECK, 'dist'])).code).toBe(0)
    expect((await sh(repo, 'bash', [CHECK, 'schema'])).code).toBe(1)
    const outside = await sh(folder(), 'bash', [CHECK])
    expect(outside.code).toBe(2)
    expect(outside.stderr).toContain('not inside a git checkout')
  })
})

const CHANGELOG = `# Changelog

## [Unreleased]

- Work in progress.

## [1.1.0] - 2026-02-01

### Added

- Second.

## [1.0.0] - 2026-01-01

- First.
`

describe('scripts/release-notes.sh', () => {
  it("prints a tag's section without its heading, and refuses a tag without one", async () => {
    const dir = folder()
    writeFileSync(join(dir, 'CHANGELOG.md'), CHANGELOG)
    expect(await sh(dir, 'bash', [NOTES, 'v1.1.0'])).toEqual({
      code: 0,
      stdout: '### Added\n\n- Second.\n',
      stderr: '',
    })
    expect((await sh(dir, 'bash', [NOTES, 'v1.0.0'])).stdout).toBe('- First.\n')
    const missing = await sh(dir, 'bash', [NOTES, 'v1.2.0'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("no section '## [1.2.0]'")
    const bad = await sh(dir, 'bash', [NOTES, 'latest'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("'latest' is not a release tag")
  })

  it("finds every release of the repository's CHANGELOG.md", async () => {
    const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
    const versions = [...text.matchAll(/^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/gm)].map((m) => m[1])
    expect(versions.length).toBeGreaterThanOrEqual(4)
    for (const version of versions) {
      const out = await sh(ROOT, 'bash', [NOTES, `v${version}`])
      expect(out.code, `v${version}: ${out.stderr}`).toBe(0)
      expect(out.stdout).toMatch(/^### (Added|Changed|Fixed|Removed|Deprecated|Security)$/m)
    }
  })
})

describe('scripts/move-major-tag.sh', () => {
  it('moves v1 to a newer release only: not back to an older line, not to a pre-release', async () => {
    const origin = folder()
    await git(origin, 'init', '-q', '--bare')
    const repo = folder()
    await git(repo, 'init', '-q')
    await git(repo, 'remote', 'add', 'origin', origin)
    const commit = async (name: string) => {
      writeFileSync(join(repo, 'file'), name)
      await git(repo, 'add', 'file')
      await git(repo, 'commit', '-q', '-m', name)
      return git(repo, 'rev-parse', 'HEAD')
    }
    const v1OnOrigin = () => git(origin, 'rev-parse', 'refs/tags/v1^{commit}')
    const release = async (tag: string) => {
      await git(repo, 'tag', '-a', tag, '-m', tag)
      return sh(repo, 'bash', [MOVE, tag, 'origin'])
    }

    const first = await commit('one')
    expect((await release('v1.0.0')).code).toBe(0)
    expect(await v1OnOrigin()).toBe(first)

    const second = await commit('two')
    expect((await release('v1.1.0')).stdout).toContain('v1 -> v1.1.0')
    expect(await v1OnOrigin()).toBe(second)

    await git(repo, 'checkout', '-q', first)
    await commit('a fix on the older line')
    expect((await release('v1.0.1')).stdout).toContain('v1.1.0 is newer than v1.0.1')
    expect(await v1OnOrigin()).toBe(second)

    await commit('a candidate')
    expect((await release('v1.2.0-rc.1')).stdout).toContain('pre-release')
    expect(await v1OnOrigin()).toBe(second)

    const untagged = await sh(repo, 'bash', [MOVE, 'v1.9.0', 'origin'])
    expect(untagged.code).toBe(1)
    expect(untagged.stderr).toContain('no tag v1.9.0')
    expect((await sh(repo, 'bash', [MOVE, 'main', 'origin'])).code).toBe(2)
  })
})
