/**
 * Writing under the results directory without following symbolic links. The directory is inside the
 * checked-out workspace, so a pull request can commit a symlink there (`llm-bench-results/report.md →
 * ~/.bashrc`); every file we write is opened with O_NOFOLLOW and every directory on the way is checked with
 * lstat, so such a link is refused by name instead of written through.
 */
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, writeSync, type Stats } from 'node:fs'
import { open } from 'node:fs/promises'
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

/** What a path is when it is not a regular file, for the messages that refuse it. */
function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO'
  if (stat.isSocket()) return 'a socket'
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device'
  if (stat.isDirectory()) return 'a directory'
  return 'not a regular file'
}

/** Files the run reads (results, baselines, matrix files, other tools' output) stay under this. */
export const MAX_READ_BYTES = 256 * 1024 * 1024

/**
 * Reads a regular file as UTF-8 text, or refuses it naming why: a FIFO, device, socket or directory, or a
 * file past `maxBytes`. Opening a FIFO to read blocks until a writer comes, and SIGTERM does not end the
 * wait, so the path is opened non-blocking (open(2): O_NONBLOCK has no effect on a regular file) and checked
 * with fstat on that descriptor, with no window between the check and the read. A refusal is an error whose
 * `code` is EISDIR for a directory and ENOTREG otherwise.
 */
export async function readRegularFile(path: string, maxBytes = MAX_READ_BYTES): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) {
      const error = new Error(`${kindOf(stat)}, not a regular file`) as NodeJS.ErrnoException
      error.code = stat.isDirectory() ? 'EISDIR' : 'ENOTREG'
      throw error
    }
    if (stat.size > maxBytes) {
      const error = new Error(`${stat.size} bytes, over the limit of ${maxBytes}`) as NodeJS.ErrnoException
      error.code = 'EFBIG'
      throw error
    }
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}
