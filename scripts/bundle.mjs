// Builds the three committed bundles: the main step, the post step and the CLI.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'

const entries = [
  ['src/index.ts', 'dist'],
  ['src/post.ts', 'dist/post'],
  ['src/cli.ts', 'dist/cli'],
]

rmSync('dist', { recursive: true, force: true })
for (const [entry, out] of entries) {
  execFileSync('npx', ['ncc', 'build', entry, '-o', out, '--source-map', '--license', 'licenses.txt', '--quiet'], { stdio: 'inherit' })
}
