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
async function detectWith(script: string | undefined): Promise<{ runtime: string; why: string }> {
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
    {
      name: 'a docker whose daemon answers',
      script: 'echo 27.3.1',
      runtime: 'docker',
      why: 'the docker daemon answers (27.3.1)',
    },
    {
      name: 'a docker CLI without a daemon',
      script:
        'echo "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock" >&2; exit 1',
      runtime: 'podman',
      why: 'the docker daemon did not answer (permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock)',
    },
    {
      name: 'a docker that exits 1 silently',
      script: 'exit 1',
      runtime: 'podman',
      why: 'the docker daemon did not answer (exit 1)',
    },
    {
      name: 'a docker that hangs',
      script: 'exec sleep 30',
      runtime: 'podman',
      why: '`docker version` did not answer within 3s',
    },
    { name: 'no docker at all', script: undefined, runtime: 'podman', why: 'no docker command' },
  ])('$name → $runtime', async ({ script, runtime, why }) => {
    expect(await detectWith(script)).toEqual({ runtime, why })
  })
})
