/**
 * docs/architecture.md names every file of src/, so a reader finds each one from the doc and the doc cannot fall
 * behind a new or split file. A file counts as named when the doc holds, as inline code, its path relative to src/
 * (`compare/ab-final.ts`, with or without `src/`) anywhere, or its base name (`ab-final.ts`) inside its own folder's
 * bullet of "What each layer holds" (`- **compare/** — …`). A base name under another folder's bullet does not
 * count: `index.ts`, `types.ts` and engine names repeat across folders. The files directly in src/ are named in the
 * `entries` bullet. The other way round, a base name in a folder's bullet, or a src/ path anywhere, that is no file
 * of src/ fails too: a renamed or removed file may not linger in the doc.
 */
import { readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/root.js'
import { sourceFiles } from './helpers/sources.js'

const DOC = 'docs/architecture.md'
const SECTION = '### What each layer holds'
/** The bullet that names the files directly in src/. */
const ENTRIES = 'entries'

/**
 * Inline code spans of a text, fenced blocks left out. A span may run over a line break (it reads as a space) but
 * never over a blank line, so one stray backtick cannot shift the spans of the paragraphs after it.
 */
function codeSpans(text: string): string[] {
  return text
    .replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '')
    .split(/\n\s*\n/)
    .flatMap((paragraph) => [...paragraph.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\s+/g, ' ').trim()))
}

/** The bullets of "What each layer holds", keyed by folder (`compare/`) or `entries`, each with its text. */
function layerBullets(markdown: string): Map<string, string> {
  const start = markdown.indexOf(`\n${SECTION}\n`)
  if (start < 0) throw new Error(`${DOC}: no "${SECTION}" section`)
  const rest = markdown.slice(start + SECTION.length + 2)
  const end = rest.search(/^#{1,3} /m)
  const section = end < 0 ? rest : rest.slice(0, end)
  const bullets = new Map<string, string>()
  for (const bullet of section.split(/^(?=- \*\*)/m)) {
    const head = /^- \*\*([^*]+)\*\*/.exec(bullet)
    if (head) bullets.set(head[1], bullet)
  }
  return bullets
}

/** The folder of a src/-relative path (`compare/`), or `entries` for a file directly in src/. */
function folderOf(file: string): string {
  const dir = posix.dirname(file)
  return dir === '.' ? ENTRIES : `${dir}/`
}

const where = (file: string, folder: string) => (folder === ENTRIES ? '' : `, or \`${file}\` anywhere`)

/** Every file of src/ the doc does not name, as `src/<path>` and where the doc should name it. */
function unnamedFiles(markdown: string, files: readonly string[]): string[] {
  const bullets = layerBullets(markdown)
  const anywhere = new Set(codeSpans(markdown).map((s) => s.replace(/^src\//, '')))
  return files.flatMap((file) => {
    const folder = folderOf(file)
    const bullet = bullets.get(folder)
    const base = posix.basename(file)
    if (bullet !== undefined && codeSpans(bullet).includes(base)) return []
    if (folder !== ENTRIES && anywhere.has(file)) return []
    return bullet === undefined
      ? [`src/${file}: ${DOC} has no "- **${folder}**" bullet under "${SECTION}"`]
      : [`src/${file}: not named in ${DOC} (\`${base}\` under the ${folder} bullet${where(file, folder)})`]
  })
}

/** Names in the doc that are no file of src/: a `.ts` base name in a folder's bullet, a src/ path anywhere. */
function staleNames(markdown: string, files: readonly string[]): string[] {
  const known = new Set(files)
  const folders = new Set(files.map(folderOf))
  const stale: string[] = []
  for (const [folder, bullet] of layerBullets(markdown)) {
    for (const span of codeSpans(bullet)) {
      if (!/^[\w.-]+\.ts$/.test(span)) continue
      const path = folder === ENTRIES ? span : `${folder}${span}`
      if (!known.has(path)) stale.push(`\`${span}\` under the ${folder} bullet: no file src/${path}`)
    }
  }
  for (const span of codeSpans(markdown)) {
    const path = span.replace(/^src\//, '')
    if (/^[\w-]+\/[\w.-]+\.ts$/.test(path) && folders.has(folderOf(path)) && !known.has(path))
      stale.push(`\`${span}\`: no file src/${path}`)
  }
  return [...new Set(stale)]
}

const doc = readFileSync(posix.join(ROOT, DOC), 'utf8')
const files = sourceFiles().map((f) => f.path)

describe(`${DOC} names every file of src/`, () => {
  it('reads one bullet per folder of src/ and the entries', () => {
    const bullets = layerBullets(doc)
    expect(files.length).toBeGreaterThan(200)
    expect([...new Set(files.map(folderOf))].filter((f) => !bullets.has(f))).toEqual([])
  })

  it('names each file of src/ under its own folder, or by its path', () => {
    expect(unnamedFiles(doc, files)).toEqual([])
  })

  it('names no file that src/ does not hold', () => {
    expect(staleNames(doc, files)).toEqual([])
  })
})

describe('the matching rule', () => {
  const text = [
    '# Doc',
    '',
    '```',
    ' a fence ` is no span',
    '```',
    '',
    '### What each layer holds',
    '',
    '- **core/** — `index.ts` (the face), `gone.ts`.',
    '- **compare/** — `judge.ts` (verdicts) and',
    '  `ab.ts`; the shapes are in `core/types.ts`.',
    '- **report/** — `index.ts`; `judge.ts` here is not compare/judge.ts.',
    '- **entries** — `index.ts` calls `report/index.ts`.',
    '',
    '### Next',
    '',
    'Elsewhere `compare/metric.ts` and `src/compare/noise.ts`, but a bare `run.ts` names nothing.',
  ].join('\n')

  it('counts a base name in its own bullet and a path anywhere, not a base name under another bullet', () => {
    const tree = [
      'core/index.ts',
      'core/types.ts',
      'compare/judge.ts',
      'compare/ab.ts',
      'compare/metric.ts',
      'compare/noise.ts',
      'compare/run.ts',
      'compare/index.ts',
      'report/index.ts',
      'index.ts',
      'cli.ts',
    ]
    expect(unnamedFiles(text, tree)).toEqual([
      `src/compare/run.ts: not named in ${DOC} (\`run.ts\` under the compare/ bullet, or \`compare/run.ts\` anywhere)`,
      `src/compare/index.ts: not named in ${DOC} (\`index.ts\` under the compare/ bullet, or \`compare/index.ts\` anywhere)`,
      `src/cli.ts: not named in ${DOC} (\`cli.ts\` under the entries bullet)`,
    ])
    expect(unnamedFiles(text, ['host/gpu.ts'])).toEqual([
      `src/host/gpu.ts: ${DOC} has no "- **host/**" bullet under "${SECTION}"`,
    ])
  })

  it('names what the doc mentions that src/ lacks', () => {
    expect(
      staleNames(text, ['core/index.ts', 'compare/judge.ts', 'compare/ab.ts', 'report/index.ts', 'index.ts']),
    ).toEqual([
      '`gone.ts` under the core/ bullet: no file src/core/gone.ts',
      '`judge.ts` under the report/ bullet: no file src/report/judge.ts',
      '`core/types.ts`: no file src/core/types.ts',
      '`compare/metric.ts`: no file src/compare/metric.ts',
      '`src/compare/noise.ts`: no file src/compare/noise.ts',
    ])
  })
})
