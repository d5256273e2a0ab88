/**
 * The program a launch command runs, as a content hash: what tells two builds of an engine apart when both report
 * the same version (a rebuilt `llama-server` at a fixed build prefix, a wrapper script that moved to another
 * engine). The launch is a `bash -c` text; its program is the first word after leading `VAR=value` assignments and
 * `exec`, with `$VAR` / `${VAR}` expanded from the launch's environment, resolved against the launch's working
 * directory when it names a path and along `PATH` otherwise — bash's own rule for a command name without a slash
 * (bash manual, "Command Search and Execution"). A word that needs more of the shell than that (quotes around a
 * variable, `$(…)`, globbing) is not guessed at: no hash, and nothing compares.
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path'

/** Largest program hashed: an engine binary is tens of MiB; a multi-GiB file is not a program worth reading. */
export const MAX_PROGRAM_BYTES = 1024 * 1024 * 1024
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=\S*$/
const PLAIN_WORD = /^[A-Za-z0-9_./${}:+@%,-]+$/

/** The launch command's program word with its variables expanded; undefined when it takes more of the shell. */
export function programWord(command: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const words = command.trim().split(/\s+/)
  let i = 0
  while (i < words.length && (ASSIGNMENT.test(words[i]) || words[i] === 'exec')) i++
  const word = words[i]
  if (!word || !PLAIN_WORD.test(word)) return undefined
  let unknown = false
  const expanded = word.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, a, b) => {
    const value = env[(a ?? b) as string]
    if (value === undefined) unknown = true
    return value ?? ''
  })
  return unknown || expanded.includes('$') || !expanded ? undefined : expanded
}

/** The regular file the word names: relative to `cwd` with a slash, else the first match along `PATH`. */
async function resolveProgram(word: string, cwd: string, path: string | undefined): Promise<string | undefined> {
  const candidates = word.includes('/')
    ? [isAbsolute(word) ? word : resolve(cwd, word)]
    : (path ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(resolve(cwd, dir), word))
  for (const file of candidates) {
    const s = await stat(file).catch(() => undefined)
    if (s?.isFile() && s.size <= MAX_PROGRAM_BYTES) return file
  }
  return undefined
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/**
 * `llama-server sha256:0123456789abcdef`: the launched program's name and the first 16 hex digits of its SHA-256;
 * undefined when the program cannot be told (see the header). Never throws.
 */
export async function launchedProgram(
  command: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<string | undefined> {
  if (!command) return undefined
  const word = programWord(command, env)
  if (!word) return undefined
  try {
    const file = await resolveProgram(word, cwd, env.PATH)
    return file ? `${basename(file)} sha256:${(await sha256(file)).slice(0, 16)}` : undefined
  } catch {
    return undefined
  }
}
