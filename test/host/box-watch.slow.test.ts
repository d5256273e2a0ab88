/**
 * The box watch of one round on this box's real /proc (host/box-watch.ts): what a launched and an attached engine's
 * round record, that a busy child of this process — ours — is never named, and which GPU processes count, with a
 * scripted `nvidia-smi`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import type { HostState } from '../../src/core/host.js'
import type { Run } from '../../src/host/index.js'
import { watchBox } from '../../src/host/index.js'

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

const GIB = 1024 ** 3

describe('watchBox', () => {
  it("records uptime, the engine's launch age, memory and CPU; a busy child of ours is never named", async () => {
    const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
    children.push(child)
    const launchedAt = performance.now() - 5000
    const end = watchBox({ groups: () => new Set(), launchedAt: () => launchedAt, sampleMs: 50 })
    await delay(600)
    const { host } = await end()
    expect(host!.uptimeS).toBeGreaterThan(0)
    expect(host!.launchAgeMs).toBeGreaterThanOrEqual(5000)
    expect(host!.launchAgeMs).toBeLessThan(5000 + 500)
    expect(host!.attached).toBeUndefined()
    // Start, about one sample per 50 ms, end.
    expect(host!.samples).toBeGreaterThanOrEqual(4)
    const { beforeBytes, afterBytes, minBytes } = host!.memory!
    expect(minBytes).toBeLessThanOrEqual(Math.min(beforeBytes, afterBytes))
    expect(host!.swap).toEqual({
      usedBytes: expect.any(Number),
      inPages: expect.any(Number),
      outPages: expect.any(Number),
    })
    expect(host!.cpu!.busy).toBeGreaterThan(0)
    expect(host!.cpu!.busy).toBeLessThanOrEqual(1)
    const named = host!.cpu!.top.map((p) => p.pid)
    expect(named).not.toContain(child.pid)
    expect(named).not.toContain(process.pid)
    expect((host!.disturbed ?? []).join()).not.toMatch(new RegExp(`pid (${child.pid}|${process.pid})\\)`))
  })

  it('says a `url:` target was not launched by this run, and counts no CPU use against it', async () => {
    const end = watchBox({ groups: () => new Set(), launchedAt: () => undefined, sampleMs: 50 })
    await delay(200)
    const { host } = await end()
    expect(host!.attached).toBe(true)
    expect(host!.launchAgeMs).toBeUndefined()
    expect((host!.disturbed ?? []).filter((d) => d.includes('% of a core') || d.includes('cores'))).toEqual([])
  })

  it('names a GPU process that appeared since preflight, and marks allowed and other-GPU ones', async () => {
    const preflight: HostState = {
      gpus: [
        { uuid: 'GPU-a', active: [] },
        { uuid: 'GPU-b', active: [] },
      ],
      processes: [{ pid: 900001, name: 'exporter', ours: false, allowed: true }],
    }
    const apps = [
      '900001, GPU-a, exporter, 10',
      '900002, GPU-a, /usr/bin/python3, 2048',
      '900003, GPU-a, ollama, 512',
      '900004, GPU-b, train, 4096',
      `${process.pid}, GPU-a, node, 100`,
    ].join('\n')
    const smi: Run = async () => ({ ok: true, stdout: `${apps}\n` })
    const end = watchBox({
      groups: () => new Set(),
      launchedAt: () => performance.now(),
      floor: { kind: 'bytes', value: 0 },
      gpu: {
        smi,
        preflight,
        ids: [
          { index: 0, uuid: 'GPU-a' },
          { index: 1, uuid: 'GPU-b' },
        ],
        scope: { gpus: [{ index: 0, uuid: 'GPU-a' }], of: 2, from: 'test' },
        allow: ['ollama'],
      },
    })
    const { host } = await end()
    expect(host!.gpuProcesses).toEqual([
      { pid: 900002, name: '/usr/bin/python3', gpu: 0 },
      { pid: 900003, name: 'ollama', gpu: 0, allowed: true },
      { pid: 900004, name: 'train', gpu: 1, outside: true },
    ])
    expect(host!.disturbed).toContain('GPU process /usr/bin/python3 (pid 900002) appeared on GPU 0')
    expect(host!.disturbed!.filter((d) => d.startsWith('GPU process'))).toHaveLength(1)
  })

  it('calls the round disturbed when available memory is under the floor', async () => {
    const end = watchBox({
      groups: () => new Set(),
      launchedAt: () => performance.now(),
      floor: { kind: 'bytes', value: 1024 * GIB },
    })
    const { host } = await end()
    expect(host!.disturbed).toContainEqual(
      expect.stringMatching(/^available memory fell to .+, under the memory floor of 1TiB$/),
    )
  })
})
