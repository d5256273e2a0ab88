/** The preflight decision: a stray GPU process or an active slowdown stops the target; the rest is recorded. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { HostState } from '../../src/core/host.js'
import {
  markAllowed,
  markOutside,
  oursBy,
  preflightProblem,
  readGovernors,
  readHost,
  runCommand,
} from '../../src/host/index.js'
import { scriptedSmi } from './smi.js'

const memory = async () => ({ availableBytes: 100 * 1024 ** 3, totalBytes: 128 * 1024 ** 3 })
const launched = { attached: false }
const UUID = (index: number) => `GPU-00000000-0000-4000-8000-${String(index).padStart(12, '0')}`

describe('preflight', () => {
  it('a GPU compute process this run did not start: GPU busy, naming it', async () => {
    const host = await readHost({ smi: scriptedSmi('stray'), memory, ours: oursBy(new Set()) })
    expect(host.processes).toEqual([
      { pid: 4242, name: 'python', usedMemoryMiB: 1024, gpu: 0, gpuUuid: UUID(0), ours: false },
    ])
    expect(host.gpus![0].uuid).toBe(UUID(0))
    expect(preflightProblem(host, launched)).toBe('GPU busy: pid 4242 python (not started by this run)')
  })

  it.each([
    { on: 0, scope: [1], problem: undefined, outside: [4242] },
    { on: 1, scope: [1], problem: 'GPU busy: pid 4242 python on GPU 1 (not started by this run)', outside: [] },
    { on: 0, scope: [0, 1], problem: 'GPU busy: pid 4242 python on GPU 0 (not started by this run)', outside: [] },
    { on: 1, scope: [], problem: undefined, outside: [4242] },
  ])('2 GPUs, a process on GPU $on, the target on GPUs $scope: $problem', async ({ on, scope, problem, outside }) => {
    const host = await readHost({
      smi: scriptedSmi('stray', undefined, { FAKE_SMI_GPUS: '2', FAKE_SMI_STRAY_GPU: String(on) }),
    })
    const counted = { gpus: scope.map((index) => ({ index, uuid: UUID(index) })), of: 2, from: 'test' }
    expect(markOutside(host, counted).map((p) => p.pid)).toEqual(outside)
    expect(host.processes![0].outside).toBe(outside.length ? true : undefined)
    expect(preflightProblem(host, { ...launched, scope: counted })).toBe(problem)
  })

  it('a slowdown on a GPU the target does not use is not the target’s', async () => {
    const host = await readHost({ smi: scriptedSmi('throttled', undefined, { FAKE_SMI_GPUS: '2' }) })
    const on = (index: number) => ({ ...launched, scope: { gpus: [{ index }], of: 2, from: 'test' } })
    expect(preflightProblem(host, on(1))).toBeUndefined()
    expect(preflightProblem(host, on(0))).toBe('GPU throttled before launch: GPU 0 sw_thermal_slowdown')
  })

  it('a process in a group this run launched is ours', async () => {
    const host = await readHost({ smi: scriptedSmi('stray'), ours: oursBy(new Set([4242])) })
    expect(host.processes![0].ours).toBe(true)
    expect(preflightProblem(host, launched)).toBeUndefined()
  })

  it.each([
    { globs: ['python'], allowed: [4242] },
    { globs: ['python*'], allowed: [4242, 77] },
    { globs: ['/opt/dcgm/**'], allowed: [13] },
    { globs: ['dcgm-exporter'], allowed: [13] },
    { globs: ['ollama', 'Python'], allowed: [] },
  ])('allow-gpu-processes $globs: pids $allowed are allowed, the rest still stops the target', ({ globs, allowed }) => {
    const host: HostState = {
      processes: [
        { pid: 4242, name: 'python', ours: false },
        { pid: 77, name: '/usr/bin/python3.12', ours: false },
        { pid: 13, name: '/opt/dcgm/bin/dcgm-exporter', ours: false },
        { pid: 9, name: 'python', ours: true },
      ],
    }
    expect(markAllowed(host, globs).map((p) => p.pid)).toEqual(allowed)
    expect(host.processes!.filter((p) => p.allowed).map((p) => p.pid)).toEqual(allowed)
    expect(host.processes!.find((p) => p.pid === 9)).toEqual({ pid: 9, name: 'python', ours: true })
    const stray = host.processes!.filter((p) => !p.ours && !allowed.includes(p.pid))
    expect(preflightProblem(host, launched)).toBe(
      stray.length
        ? `GPU busy: ${stray.map((p) => `pid ${p.pid} ${p.name}`).join(', ')} (not started by this run)`
        : undefined,
    )
  })

  it('a target attached by URL runs its engine outside the run: its GPU process is expected', async () => {
    const host = await readHost({ smi: scriptedSmi('stray') })
    expect(preflightProblem(host, { attached: true })).toBeUndefined()
  })

  it('an active slowdown before launch: throttled, naming the reason', async () => {
    const host = await readHost({ smi: scriptedSmi('throttled') })
    expect(preflightProblem(host, launched)).toBe('GPU throttled before launch: GPU 0 sw_thermal_slowdown')
  })

  it('records the CUDA version, available memory and a quiet box passes', async () => {
    const host = await readHost({ smi: scriptedSmi('ok'), memory })
    expect(host).toMatchObject({ cuda: '13.0', processes: [], memory: await memory() })
    expect(preflightProblem(host, launched)).toBeUndefined()
  })

  it('without nvidia-smi: no GPU information, recorded, and nothing fails', async () => {
    const host = await readHost({
      smi: (args) => runCommand('nvidia-smi-not-installed-here', args),
      memory: async () => ({ availableBytes: Number.NaN, totalBytes: 1 }),
    })
    expect(host.noGpu).toBe('no GPU information: nvidia-smi not found')
    expect(host).not.toHaveProperty('gpus')
    expect(host).not.toHaveProperty('memory')
    expect(preflightProblem(host, launched)).toBeUndefined()
  })
})

describe('CPU governor', () => {
  it('the distinct governors of every CPU; none without cpufreq', async () => {
    const root = await mkdtemp(join(tmpdir(), 'lbg-cpu-'))
    for (const [cpu, governor] of [
      ['cpu0', 'performance'],
      ['cpu1', 'powersave'],
      ['cpu2', 'performance'],
    ]) {
      await mkdir(join(root, cpu, 'cpufreq'), { recursive: true })
      await writeFile(join(root, cpu, 'cpufreq', 'scaling_governor'), `${governor}\n`)
    }
    await mkdir(join(root, 'cpu3'))
    await mkdir(join(root, 'cpufreq'))
    expect(await readGovernors(root)).toEqual(['performance', 'powersave'])
    expect(await readGovernors(join(root, 'nowhere'))).toEqual([])
  })
})
