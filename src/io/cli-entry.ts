/** Where the bundled CLI lives, so the sim engine can launch itself as a child process. */
import { existsSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

function candidates(dir: string): string[] {
  return [
    join(dir, 'cli', 'index.js'),
    join(dir, 'dist', 'cli', 'index.js'),
    ...(basename(dir) === 'cli' ? [join(dir, 'index.js')] : []),
  ]
}

/** Absolute path of `dist/cli/index.js`, searched upwards from the running bundle or source file. */
export function cliEntry(): string {
  const starts = [
    process.argv[1] ? dirname(resolve(process.argv[1])) : undefined,
    dirname(fileURLToPath(import.meta.url)),
  ]
  for (const start of starts) {
    let dir = start
    for (let depth = 0; dir && depth < 6; depth++) {
      const found = candidates(dir).find((c) => existsSync(c))
      if (found) return found
      dir = dirname(dir)
    }
  }
  throw new Error('cannot find dist/cli/index.js: run `npm run bundle` first')
}
