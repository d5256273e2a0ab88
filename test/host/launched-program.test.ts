/** The launched program's hash (host/launched-program.ts) and the check that an A/B's arms differ as the PR does. */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { launchedProgram, programWord } from '../../src/host/launched-program.js'
import { unreproducedChanges } from '../../src/compare/index.js'

describe('programWord', () => {
  it.each([
    ['llama-server -m x.gguf --port {port}', {}, 'llama-server'],
    ['FOO=1 exec ./build/bin/llama-server --port 8', {}, './build/bin/llama-server'],
    ['$ENGINE_HOME/bin/vllm serve m', { ENGINE_HOME: '/opt/e' }, '/opt/e/bin/vllm'],
    ['${ENGINE_HOME}/serve', { ENGINE_HOME: '/opt/e' }, '/opt/e/serve'],
    ['$UNSET/serve', {}, undefined],
    ['"$(which vllm)" serve', {}, undefined],
    ['', {}, undefined],
  ])('%s → %s', (command, env, word) => {
    expect(programWord(command, env)).toBe(word)
  })
})

describe('launchedProgram', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lbg-program-'))
  mkdirSync(join(dir, 'bin'))
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, 'bin', name), text)
    chmodSync(join(dir, 'bin', name), 0o755)
  }
  write('serve', '#!/bin/sh\necho 1.0\n')
  write('other', '#!/bin/sh\necho 1.1\n')

  it('hashes the file a relative path, a PATH lookup and a variable name, alike for the same contents', async () => {
    const relative = await launchedProgram('./bin/serve --port 1', {}, dir)
    expect(relative).toMatch(/^serve sha256:[0-9a-f]{16}$/)
    expect(await launchedProgram('serve --port 1', { PATH: join(dir, 'bin') }, '/')).toBe(relative)
    expect(await launchedProgram('$H/bin/serve', { H: dir }, '/')).toBe(relative)
    expect(await launchedProgram('./bin/other', {}, dir)).not.toBe(relative)
  })

  it('is undefined for what it cannot tell: no command, a missing file, a folder', async () => {
    expect(await launchedProgram(undefined, {}, dir)).toBeUndefined()
    expect(await launchedProgram('./bin/none', {}, dir)).toBeUndefined()
    expect(await launchedProgram('./bin', {}, dir)).toBeUndefined()
  })
})

describe('unreproducedChanges', () => {
  const stored = { driver: '580.95', engine: '1.0', program: 'serve sha256:aaaa' }
  const pr = { driver: '590.10', engine: '1.1', program: 'serve sha256:bbbb' }

  it("lists each engine change the base arm ran the PR's side of, never the box's driver", () => {
    expect(unreproducedChanges(stored, pr, [pr, pr])).toEqual([
      'engine 1.0 → 1.1, base arm 1.1',
      'launched program serve sha256:aaaa → serve sha256:bbbb, base arm serve sha256:bbbb',
    ])
  })

  it('is empty when the base arm ran the base side of every change, or nothing of the engine changed', () => {
    expect(unreproducedChanges(stored, pr, [stored, stored])).toEqual([])
    expect(unreproducedChanges(stored, { ...stored, driver: '590.10' }, [pr])).toEqual([])
    expect(unreproducedChanges(undefined, pr, [pr])).toEqual([])
  })

  it('counts a base launch that recorded nothing as not reproducing the change', () => {
    expect(unreproducedChanges(stored, pr, [stored, undefined])).toEqual([
      'engine 1.0 → 1.1, base arm unknown',
      'launched program serve sha256:aaaa → serve sha256:bbbb, base arm unknown',
    ])
  })
})
