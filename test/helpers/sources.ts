/** The TypeScript files under src/, read once, with posix paths relative to src/ (`bench/rounds/round.ts`). */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { ROOT } from './root.js'

export const SRC_DIR = join(ROOT, 'src')

export interface SourceFile {
  /** Path relative to src/, with `/` separators. */
  path: string
  text: string
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return walk(path)
    return entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

export function sourceFiles(dir = SRC_DIR): SourceFile[] {
  return walk(dir)
    .map((path) => ({ path: relative(dir, path).split(sep).join('/'), text: readFileSync(path, 'utf8') }))
    .sort((a, b) => a.path.localeCompare(b.path))
}
