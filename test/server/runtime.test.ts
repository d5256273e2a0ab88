// The default runtime: docker only when a docker daemon answers (a docker CLI without one does not count), else podman.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'

const dirs: string[] = []
const savedPath = process.env.PATH

afterEach(() => {
  process.env.PATH = savedPath
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A fresh copy of the module (its answer is cached per process) with `docker` on PATH being `script`, or absent. */
async function detectWith(script: string | undefined): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'lbg-runtime-'))
  dirs.push(dir)
  if (script !== undefined) {
    writeFileSync(join(dir, 'docker'), `#!/bin/sh\n${script}\n`)
    chmodSync(join(dir, 'docker'), 0o755)
  }
  process.env.PATH = script === undefined ? dir : `${dir}:${savedPath}`
  vi.resetModules()
  const { detectRuntime } = await import('../../src/server/container.js')
  return detectRuntime()
}

describe('detectRuntime', () => {
  it.each([
    { name: 'a docker whose daemon answers', script: 'echo 27.3.1', runtime: 'docker' },
    { name: 'a docker CLI without a daemon', script: 'echo "Cannot connect to the Docker daemon" >&2; exit 1', runtime: 'podman' },
    { name: 'a docker that hangs', script: 'exec sleep 30', runtime: 'podman' },
    { name: 'no docker at all', script: undefined, runtime: 'podman' },
  ])('$name → $runtime', async ({ script, runtime }) => {
    expect(await detectWith(script)).toBe(runtime)
  })
})
