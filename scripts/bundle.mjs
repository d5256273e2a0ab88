// Builds the committed bundles: the action (main and post step share dist/index.js) and the CLI.
// Type checking is `npm run lint`'s job; ncc only transpiles here, which keeps `npm test` fast.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'

const entries = [
  ['src/index.ts', 'dist'],
  ['src/cli.ts', 'dist/cli'],
]

rmSync('dist', { recursive: true, force: true })
for (const [entry, out] of entries) {
  execFileSync('npx', ['ncc', 'build', entry, '-o', out, '--license', 'licenses.txt', '--quiet'], { stdio: 'inherit' })
}
