/**
 * No file in src/ runs past MAX_LINES lines: past it a file holds more than one job and splits along its seams
 * (docs/architecture.md says what each file holds). Lines are counted as an editor numbers them, blank lines and
 * comments included, a final newline not starting another. There is no list of exceptions.
 */
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './helpers/sources.js'

const MAX_LINES = 300

/** Lines as an editor numbers them: `a\nb\n` is 2, `a\nb` is 2, an empty file 0. */
function lineCount(text: string): number {
  if (text === '') return 0
  const breaks = text.split('\n').length - 1
  return text.endsWith('\n') ? breaks : breaks + 1
}

describe('file length', () => {
  it(`keeps every file in src/ within ${MAX_LINES} lines`, () => {
    const files = sourceFiles()
    expect(files.length).toBeGreaterThan(200)
    const offenders = files
      .map((f) => ({ path: f.path, lines: lineCount(f.text) }))
      .filter((f) => f.lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path))
      .map((f) => `src/${f.path}: ${f.lines} lines (limit ${MAX_LINES}); split it along its seams`)
    expect(offenders).toEqual([])
  })

  it('counts lines as an editor numbers them', () => {
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount('a\nb\n\n')]).toEqual([
      0, 1, 1, 2, 3,
    ])
  })
})
