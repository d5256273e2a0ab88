/**
 * `npm run bundle` (scripts/bundle.mjs) replaces dist/ while a CLI or action may start from it in another terminal:
 * dist/index.js and dist/cli/index.js are there and whole at every moment of a build, and afterwards dist/ holds what
 * the build made and nothing else. The script runs in a scratch checkout while the test checks both entries over and
 * over with `node --check`. There `ncc` is a stand-in that writes what ncc writes (the entry's bundle, its
 * package.json and licenses, from this checkout's dist/) the way a long build does: into its output folder, the
 * bundle in two halves half a second apart. The real build takes minutes; how the script moves its output does not
 * depend on how long ncc takes.
 */
import { execFile, spawn } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/root.js'

const ENTRIES = ['dist/index.js', 'dist/cli/index.js']
const BUILT = ['dist', 'dist/cli', 'dist/watchdog', 'dist/scrape-worker']

/** `ncc build <entry> -o <out> …`: this checkout's bundle of the entry, written as a build writes it. */
const STAND_IN = `#!/usr/bin/env node
const { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync } = require('node:fs')
const { join } = require('node:path')
const [command, entry, flag, out] = process.argv.slice(2)
if (command !== 'build' || flag !== '-o') throw new Error('stand-in ncc: unexpected ' + process.argv.join(' '))
const folders = { 'src/index.ts': 'dist', 'src/cli.ts': 'dist/cli', 'src/watchdog.ts': 'dist/watchdog',
  'src/scrape-worker.ts': 'dist/scrape-worker' }
const from = join(${JSON.stringify(ROOT)}, folders[entry])
mkdirSync(out, { recursive: true })
for (const file of ['package.json', 'licenses.txt'])
  if (existsSync(join(from, file))) copyFileSync(join(from, file), join(out, file))
const bundle = readFileSync(join(from, 'index.js'))
const half = Math.floor(bundle.length / 2)
writeFileSync(join(out, 'index.js'), bundle.subarray(0, half))
setTimeout(() => appendFileSync(join(out, 'index.js'), bundle.subarray(half)), 500)
`

function scratchCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lbg-bundle-'))
  for (const copied of ['package.json', 'scripts/bundle.mjs', 'dist'])
    cpSync(join(ROOT, copied), join(dir, copied), { recursive: true })
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true })
  writeFileSync(join(dir, 'node_modules/.bin/ncc'), STAND_IN)
  chmodSync(join(dir, 'node_modules/.bin/ncc'), 0o755)
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
  })
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
  // Four entries, each written over half a second, and a round of checks well under that: the checks saw it through.
  expect(checks).toBeGreaterThanOrEqual(4)

  expect(readdirSync(dir).filter((f) => f.startsWith('.dist-'))).toEqual([])
  expect(existsSync(join(dir, 'dist/retired'))).toBe(false)
  for (const folder of BUILT) {
    const file = `${folder}/index.js`
    expect(readFileSync(join(dir, file)).equals(readFileSync(join(ROOT, file))), file).toBe(true)
  }
  for (const file of ENTRIES) expect(await problem(dir, file)).toBeUndefined()
}
