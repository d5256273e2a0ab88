/**
 * Writing under the results directory without following symbolic links. The directory is inside the
 * checked-out workspace, so a pull request can commit a symlink there (`llm-bench-results/report.md →
 * ~/.bashrc`); every file we write is opened with O_NOFOLLOW and every directory on the way is checked with
 * lstat, so such a link is refused by name instead of written through.
 */
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

export class UnsafePathError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}; refusing to write through it`)
    this.name = 'UnsafePathError'
  }
}

/**
 * Creates `dir` and its missing parents below `base`, refusing any existing component that is a symlink or
 * not a directory.
 */
export function ensureDir(dir: string, base = defaultBase(dir)): void {
  const target = resolve(dir)
  const from = resolve(base)
  const steps = relative(from, target).split(sep).filter(Boolean)
  let current = from
  for (const step of ['', ...steps]) {
    current = step ? resolve(current, step) : current
    let stat
    try {
      stat = lstatSync(current)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      mkdirSync(current)
      continue
    }
    if (stat.isSymbolicLink()) throw new UnsafePathError(current, 'is a symbolic link')
    if (!stat.isDirectory()) throw new UnsafePathError(current, 'is not a directory')
  }
}

/** The working directory when `dir` is inside it, else the deepest ancestor of `dir` that exists already. */
function defaultBase(dir: string): string {
  const target = resolve(dir)
  const rel = relative(process.cwd(), target)
  if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return process.cwd()
  let base = target
  while (!existsSync(base) && dirname(base) !== base) base = dirname(base)
  return base
}

/** Opens a file for writing (`append` or truncate) without following a symlink at its name. */
export function openNoFollow(path: string, mode: 'append' | 'truncate'): number {
  const flags =
    constants.O_WRONLY |
    constants.O_CREAT |
    constants.O_NOFOLLOW |
    (mode === 'append' ? constants.O_APPEND : constants.O_TRUNC)
  try {
    return openSync(path, flags, 0o644)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafePathError(path, 'is a symbolic link')
    throw error
  }
}

/** Writes a whole file inside a checked directory, never through a symlink. */
export function writeFileNoFollow(path: string, data: string, base?: string): void {
  ensureDir(dirname(path), base)
  const fd = openNoFollow(path, 'truncate')
  try {
    const bytes = Buffer.from(data, 'utf8')
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at)
  } finally {
    closeSync(fd)
  }
}
