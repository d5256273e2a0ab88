// Builds the committed bundles: the action (main and post step share dist/index.js), the CLI, the watchdog and the
// scrape worker.
// Type checking is `npm run lint`'s job; ncc only transpiles here, which keeps `npm test` fast.
//
// dist/ is never absent nor half-written, so a CLI or action started from another terminal during a build runs the
// old bundle or the new one: every entry is built into a staging folder beside dist/ (the same file system), then each
// file is moved into place with rename(2), which replaces its target atomically
// (https://man7.org/linux/man-pages/man2/rename.2.html), and only then are the files the new build lacks removed.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const DIST = join(ROOT, 'dist')

const entries = [
  ['src/index.ts', 'dist'],
  ['src/cli.ts', 'dist/cli'],
  // The watchdog the action and the CLI start next to themselves (src/server/guard.ts finds it).
  ['src/watchdog.ts', 'dist/watchdog'],
  // The worker thread that scrapes an engine's metrics endpoint during a round (src/target-run/round-scrape.ts finds it).
  ['src/scrape-worker.ts', 'dist/scrape-worker'],
]

/** Files under `dir`, as paths relative to it. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)))
}

/** Removes the folders under `dir` left empty, deepest first. */
function removeEmptyFolders(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue
    const path = join(dir, e.name)
    removeEmptyFolders(path)
    if (readdirSync(path).length === 0) rmdirSync(path)
  }
}

// A dot folder beside dist/ (ignored by git, Prettier and ESLint), unique to this build.
const staging = mkdtempSync(join(ROOT, '.dist-'))
try {
  for (const [entry, out] of entries) {
    const to = join(staging, relative('dist', out))
    execFileSync('npx', ['ncc', 'build', entry, '-o', to, '--license', 'licenses.txt', '--quiet'], {
      cwd: ROOT,
      stdio: 'inherit',
    })
  }
  const built = filesUnder(staging)
  for (const file of built) {
    mkdirSync(dirname(join(DIST, file)), { recursive: true })
    renameSync(join(staging, file), join(DIST, file))
  }
  const keep = new Set(built)
  for (const file of filesUnder(DIST)) if (!keep.has(file)) rmSync(join(DIST, file))
  removeEmptyFolders(DIST)
} finally {
  rmSync(staging, { recursive: true, force: true })
}
