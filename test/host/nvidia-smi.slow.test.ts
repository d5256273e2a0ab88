/** Parsing nvidia-smi's CSV through the scripted nvidia-smi: N/A is absent, old drivers' field names, compute processes. */
import { describe, expect, it } from 'vitest'
import { parseComputeApps, parseGpuIds, queryGpus, runCommand } from '../../src/host/index.js'
import { scriptedSmi } from './smi.js'

describe('GPU state', () => {
  it('reads clocks, power, temperature, slowdown reasons and their counters', async () => {
    const { gpus } = await queryGpus(scriptedSmi('ok'))
    expect(gpus).toEqual([
      {
        name: 'NVIDIA GB10',
        driver: '580.95.05',
        smClockMhz: 2405,
        maxSmClockMhz: 3003,
        powerW: 11.52,
        temperatureC: 41,
        activeMask: '0x0000000000000000',
        active: [],
        counters: {
          hw_slowdown: 0,
          sw_thermal_slowdown: 0,
          hw_thermal_slowdown: 0,
          hw_power_brake_slowdown: 0,
          sw_power_cap: 0,
        },
      },
    ])
  })

  it('names the active slowdown reasons', async () => {
    const { gpus } = await queryGpus(scriptedSmi('throttled'))
    expect(gpus![0]).toMatchObject({
      active: ['sw_thermal_slowdown'],
      activeMask: '0x0000000000000020',
      temperatureC: 91,
    })
  })

  it('[N/A] and [Not Supported] are absent, never zero (GB10)', async () => {
    const { gpus } = await queryGpus(scriptedSmi('na-memory'))
    expect(gpus![0]).not.toHaveProperty('maxSmClockMhz')
    expect(gpus![0]).not.toHaveProperty('powerW')
    expect(gpus![0]).toMatchObject({ smClockMhz: 2405, active: [] })
  })

  it('asks again with clocks_throttle_reasons on a driver that does not know clocks_event_reasons; no counters there', async () => {
    const { gpus } = await queryGpus(scriptedSmi('old-driver'))
    expect(gpus![0]).toMatchObject({ driver: '535.104.05', active: [] })
    expect(gpus![0]).not.toHaveProperty('counters')
  })

  it('a missing nvidia-smi is no GPU information, not an error', async () => {
    expect(await queryGpus((args) => runCommand('nvidia-smi-not-installed-here', args))).toEqual({
      reason: 'nvidia-smi-not-installed-here not found',
      missing: true,
    })
  })
})

describe('compute processes (pid, gpu_uuid, process_name, used_memory)', () => {
  it.each([
    ['4242, GPU-ab12, python, 1024', [{ pid: 4242, gpuUuid: 'GPU-ab12', name: 'python', usedMemoryMiB: 1024 }]],
    ['4242, GPU-ab12, python, [N/A]', [{ pid: 4242, gpuUuid: 'GPU-ab12', name: 'python' }]],
    ['4242, [N/A], python, 1', [{ pid: 4242, name: 'python', usedMemoryMiB: 1 }]],
    ['17, GPU-c, /usr/bin/a, b, 10 MiB', [{ pid: 17, gpuUuid: 'GPU-c', name: '/usr/bin/a, b', usedMemoryMiB: 10 }]],
    ['[N/A], GPU-c, x, 1', []],
    ['4242, python, 1024', []],
    ['', []],
  ])('%j', (line, apps) => {
    expect(parseComputeApps(line)).toEqual(apps)
  })
})

describe('GPU indexes and UUIDs (index, uuid)', () => {
  it.each([
    [
      '0, GPU-a\n1, GPU-b',
      [
        { index: 0, uuid: 'GPU-a' },
        { index: 1, uuid: 'GPU-b' },
      ],
    ],
    ['0, [N/A]', [{ index: 0 }]],
    ['x, GPU-a\n-1, GPU-b\n1.5, GPU-c', []],
    ['', []],
  ])('%j', (text, ids) => {
    expect(parseGpuIds(text)).toEqual(ids)
  })
})

describe('bounded commands', () => {
  it('a command that hangs is killed at its time limit', async () => {
    const started = performance.now()
    const result = await runCommand('sleep', ['10'], { timeoutMs: 300, maxBytes: 1000 })
    expect(result).toEqual({ ok: false, missing: false, reason: 'sleep failed: timed out after 300 ms' })
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('a command that floods its output is cut at the output limit', async () => {
    expect(await runCommand('yes', [], { timeoutMs: 5000, maxBytes: 1000 })).toEqual({
      ok: false,
      missing: false,
      reason: 'yes failed: output over 1000 bytes',
    })
  })
})
