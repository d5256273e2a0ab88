/**
 * Comments and docs cite what a reader of the repository has: a page under docs/, an engine's source, an upstream
 * issue. The product specification is not in the repository, so no comment in src/ and no shipped doc (docs/, the
 * READMEs, CONTRIBUTING.md, action.yml) cites it: neither `SPEC §14` nor `SPEC.md` nor any other `SPEC` reference.
 * In src/ the comments are read from the syntax tree, so a constant that happens to be named SPEC is not a citation.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { ROOT } from './helpers/root.js'
import { sourceFiles } from './helpers/sources.js'

const CITATION = /\bSPEC\b/

interface Comment {
  line: number
  text: string
}

/** Every comment of a TypeScript file, each once, with the line it starts on. */
function commentsOf(file: string, text: string): Comment[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const seen = new Map<number, Comment>()
  const add = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? [])
      seen.set(r.pos, { line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) })
  }
  const visit = (node: ts.Node): void => {
    add(ts.getLeadingCommentRanges(text, node.getFullStart()))
    add(ts.getTrailingCommentRanges(text, node.getEnd()))
    // getChildren, not forEachChild: tokens too, so a comment before the `.` of a call chain is seen.
    for (const child of node.getChildren(source)) visit(child)
  }
  visit(source)
  return [...seen.values()].sort((a, b) => a.line - b.line)
}

/** `src/<file>:<line>: <text>` for each comment line of src/ that cites the specification. */
function sourceCitations(files: readonly { path: string; text: string }[]): string[] {
  return files.flatMap((f) =>
    commentsOf(f.path, f.text).flatMap((c) =>
      c.text.split('\n').flatMap((l, i) => (CITATION.test(l) ? [`src/${f.path}:${c.line + i}: ${l.trim()}`] : [])),
    ),
  )
}

/** The docs a user gets with the action: docs/*.md, the READMEs, CONTRIBUTING.md, action.yml. */
function shippedDocs(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
  return [...docs, 'README.md', 'CONTRIBUTING.md', 'action.yml', 'src/bench/README.md']
}

function docCitations(paths: readonly string[]): string[] {
  return paths.flatMap((path) =>
    readFileSync(join(ROOT, path), 'utf8')
      .split('\n')
      .flatMap((line, i) => (CITATION.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
  )
}

describe('citations of the specification', () => {
  it('appear in no comment of src/', () => {
    const files = sourceFiles()
    expect(files.length).toBeGreaterThan(200)
    expect(sourceCitations(files)).toEqual([])
  })

  it('appear in no shipped doc', () => {
    expect(docCitations(shippedDocs())).toEqual([])
  })

  it('are found in block, line and trailing comments, not in names', () => {
    const text = [
      '/** Same-box A/B (SPEC §14). */',
      'const SPEC = 1 // see SPEC.md',
      'function f() {',
      '  // SPEC: "gauges sampled"',
      '  return [SPEC]',
      '    .filter(Boolean)',
      '    /* a chain',
      '       (SPEC §6) */',
      '    .map(String)',
      '}',
      '/* docs/same-box.md */',
    ].join('\n')
    expect(sourceCitations([{ path: 'x.ts', text }])).toEqual([
      'src/x.ts:1: /** Same-box A/B (SPEC §14). */',
      'src/x.ts:2: // see SPEC.md',
      'src/x.ts:4: // SPEC: "gauges sampled"',
      'src/x.ts:8: (SPEC §6) */',
    ])
  })
})
