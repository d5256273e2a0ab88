// Builds the committed bundles: the action (main and post step share dist/index.js), the CLI, the watchdog and the
// scrape worker.
// Type checking is `npm run lint`'s job; ncc only transpiles here, which keeps `npm test` fast.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'

const entries = [
  ['src/index.ts', 'dist'],
  ['src/cli.ts', 'dist/cli'],
  // The watchdog the action and the CLI start next to themselves (src/server/guard.ts finds it).
  ['src/watchdog.ts', 'dist/watchdog'],
  // The worker thread that scrapes an engine's metrics endpoint during a round (src/target/round-scrape.ts finds it).
  ['src/scrape-worker.ts', 'dist/scrape-worker'],
]

rmSync('dist', { recursive: true, force: true })
for (const [entry, out] of entries) {
  execFileSync('npx', ['ncc', 'build', entry, '-o', out, '--license', 'licenses.txt', '--quiet'], { stdio: 'inherit' })
}
