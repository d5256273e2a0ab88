/**
 * `npm run bundle` (scripts/bundle.mjs) replaces dist/ while a CLI or action may start from it in another terminal:
 * dist/index.js and dist/cli/index.js are there and whole at every moment of a build, and afterwards dist/ holds what
 * the build made and nothing else. The script runs in a scratch checkout (a copy of this one's sources, fixtures and dist/,
 * node_modules/ linked) while the test checks both entries over and over with `node --check`.
 */
import { execFile, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/root.js'

const ENTRIES = ['dist/index.js', 'dist/cli/index.js']

function scratchCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbg-bundle-'))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  for (const copied of ['package.json', 'tsconfig.json', 'scripts/bundle.mjs', 'src', 'fixtures', 'dist'])
    cpSync(join(ROOT, copied), join(dir, copied), { recursive: true })
  // What an earlier build left that this one no longer makes.
  mkdirSync(join(dir, 'dist/retired'))
  writeFileSync(join(dir, 'dist/retired/index.js'), 'export {}\n')
  return dir
}

/** Whether `file` under `dir` exists and parses, and if not why. */
async function problem(dir: string, file: string): Promise<string | undefined> {
  if (!existsSync(join(dir, file))) return `${file}: missing`
  try {
    await promisify(execFile)(process.execPath, ['--check', file], { cwd: dir })
    return undefined
  } catch (error) {
    // Gone between the look and the parse is as bad as missing.
    return `${file}: ${(error as { stderr?: string }).stderr?.split('\n').slice(0, 3).join(' ') || String(error)}`
  }
}

describe('scripts/bundle.mjs', () => {
  it('keeps dist/index.js and dist/cli/index.js whole through a build, then drops what the build lacks', async () => {
    const dir = scratchCheckout()
    try {
      await buildWhileChecking(dir)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 600_000)
})

async function buildWhileChecking(dir: string): Promise<void> {
  const build = spawn(process.execPath, ['scripts/bundle.mjs'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  build.stderr.on('data', (d) => (stderr += d))
  const exit = new Promise<number | null>((done) => build.on('close', (code) => done(code)))
  let running = true
  void exit.then(() => (running = false))

  const problems = new Set<string>()
  let checks = 0
  while (running) {
    for (const found of await Promise.all(ENTRIES.map((f) => problem(dir, f)))) if (found) problems.add(found)
    checks++
    // A missing file answers at once: yield to the loop, so the build's exit is seen.
    await sleep(10)
  }
  expect(await exit, stderr).toBe(0)
  expect([...problems]).toEqual([])
  // The build takes a minute or more, each round of checks well under a second: the checks saw it through.
  expect(checks).toBeGreaterThanOrEqual(10)

  expect(readdirSync(dir).filter((f) => f.startsWith('.dist-'))).toEqual([])
  expect(existsSync(join(dir, 'dist/retired'))).toBe(false)
  for (const built of ['dist/index.js', 'dist/cli/index.js', 'dist/watchdog/index.js', 'dist/scrape-worker/index.js'])
    expect(existsSync(join(dir, built)), built).toBe(true)
  for (const file of ENTRIES) expect(await problem(dir, file)).toBeUndefined()
}
