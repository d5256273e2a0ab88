// Writes under the results directory never go through a symlink.
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync, existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { UnsafePathError, ensureDir, writeFileNoFollow } from '../../src/io/safe-fs.js'

function scratch() {
  const root = mkdtempSync(join(tmpdir(), 'safe-fs-'))
  const outside = join(root, 'outside')
  mkdirSync(outside)
  writeFileSync(join(outside, 'victim'), 'untouched\n')
  return { root, outside }
}

describe('safe writes', () => {
  it('creates missing directories and writes the file', () => {
    const { root } = scratch()
    writeFileNoFollow(join(root, 'results', 'deep', 'report.md'), 'hello\n', root)
    expect(readFileSync(join(root, 'results', 'deep', 'report.md'), 'utf8')).toBe('hello\n')
  })

  it('refuses a file name that is a symlink, and leaves its target alone', () => {
    const { root, outside } = scratch()
    mkdirSync(join(root, 'results'))
    symlinkSync(join(outside, 'victim'), join(root, 'results', 'report.md'))
    expect(() => writeFileNoFollow(join(root, 'results', 'report.md'), 'pwned', root)).toThrow(UnsafePathError)
    expect(() => writeFileNoFollow(join(root, 'results', 'report.md'), 'pwned', root)).toThrow(
      /report\.md: is a symbolic link; refusing to write through it/,
    )
    expect(readFileSync(join(outside, 'victim'), 'utf8')).toBe('untouched\n')
  })

  it('refuses a directory on the way that is a symlink', () => {
    const { root, outside } = scratch()
    mkdirSync(join(root, 'results'))
    symlinkSync(outside, join(root, 'results', 'logs'))
    expect(() => ensureDir(join(root, 'results', 'logs'), root)).toThrow(/logs: is a symbolic link/)
    expect(() => writeFileNoFollow(join(root, 'results', 'logs', 'x.log'), 'pwned', root)).toThrow(UnsafePathError)
    expect(existsSync(join(outside, 'x.log'))).toBe(false)
  })
})
