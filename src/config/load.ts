/**
 * Read the matrix file and parse it (YAML, or JSON by extension). Syntax errors carry the line
 * and column; `locate` maps a field path back to its line for the validation problems.
 */
import { extname } from 'node:path'
import { LineCounter, isNode, parseDocument, type Document } from 'yaml'
import { ConfigError, UnreadableConfigError } from '../core/errors.js'
import type { Locate, Path } from './issues.js'
import { readRegularFile } from '../io/safe-fs.js'

export interface Source {
  data: unknown
  locate: Locate
}

export type SourceFormat = 'yaml' | 'json'

export function formatOf(path: string): SourceFormat {
  return extname(path).toLowerCase() === '.json' ? 'json' : 'yaml'
}

/** Read and parse; throws ConfigError naming the absolute path when the file cannot be read. */
export async function readSource(configPath: string, resolvedPath: string): Promise<Source> {
  let text: string
  try {
    text = await readRegularFile(resolvedPath)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'ENOTREG' || code === 'EFBIG'
            ? `cannot be read (${(error as Error).message})`
            : `cannot be read (${code ?? String(error)})`
    throw new UnreadableConfigError(`config: ${resolvedPath} ${why}`)
  }
  return parseSource(text, configPath, formatOf(resolvedPath))
}

/** Past this nesting a matrix file is not a matrix file; parsers and validators would exhaust the stack on it. */
export const MAX_DEPTH = 64

/**
 * Parse, and turn every failure into a ConfigError naming the file: a parser or validator that throws on a
 * hostile file (an alias bomb, nesting 100,000 deep) must still end in a configuration error, so the run
 * writes its results file and summary like any other bad config.
 */
export function parseSource(text: string, configPath: string, format: SourceFormat): Source {
  const depth = nestingDepth(text)
  if (depth > MAX_DEPTH) throw new ConfigError([`${configPath}: nested ${depth} levels deep (at most ${MAX_DEPTH})`])
  try {
    return parseChecked(text, configPath, format)
  } catch (error) {
    if (error instanceof ConfigError) throw error
    throw new ConfigError([
      `${configPath}: cannot be parsed (${error instanceof Error ? error.message : String(error)})`,
    ])
  }
}

/** Deepest bracket or indentation nesting, counted without parsing (flow brackets and block indentation). */
function nestingDepth(text: string): number {
  let depth = 0
  let deepest = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 91 /* [ */ || c === 123 /* { */) deepest = Math.max(deepest, ++depth)
    else if (c === 93 /* ] */ || c === 125 /* } */) depth = Math.max(0, depth - 1)
  }
  let indent = 0
  for (const line of text.split('\n')) {
    const lead = line.length - line.trimStart().length
    if (line.trim() !== '' && !line.trimStart().startsWith('#')) indent = Math.max(indent, lead)
  }
  return Math.max(deepest, Math.floor(indent / 2))
}

function parseChecked(text: string, configPath: string, format: SourceFormat): Source {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset)
    return `${configPath}: line ${line}, column ${col}`
  }
  let data: unknown
  if (format === 'json') {
    data = parseJson(text, configPath)
    // JSON.parse keeps the last of duplicate keys silently; the YAML reading of the same text notices.
    const duplicates = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY')
    if (duplicates.length > 0) throw new ConfigError(duplicates.map((e) => `${at(e.pos[0])}: ${e.message}`))
  } else {
    if (doc.errors.length > 0) throw new ConfigError(doc.errors.map((e) => `${at(e.pos[0])}: ${e.message}`))
    data = doc.toJS({ maxAliasCount: 1000 })
  }
  if (data === null || data === undefined)
    throw new ConfigError([`${configPath}: the file is empty (expected version, scenarios and targets)`])
  return { data, locate: locator(doc, lines) }
}

function parseJson(text: string, configPath: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    const message = (error as Error).message
    // V8 words it `... in JSON at position 42` (newer versions add `(line 3 column 5)`); the end of input has no position.
    const position = /at position (\d+)/.exec(message)
    const offset = position ? Number(position[1]) : text.length
    const before = text.slice(0, offset).split('\n')
    const reason = message.replace(/\s*in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '')
    throw new ConfigError([
      `${configPath}: line ${before.length}, column ${before[before.length - 1].length + 1}: ${reason}`,
    ])
  }
}

/** The line of the deepest node that exists along `path` (a missing key points at its parent). */
function locator(doc: Document, lines: LineCounter): Locate {
  return (path: Path) => {
    for (let depth = path.length; depth > 0; depth--) {
      const node = doc.getIn(path.slice(0, depth), true)
      if (isNode(node) && node.range) return lines.linePos(node.range[0])
    }
    return undefined
  }
}
