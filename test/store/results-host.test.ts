/** The results reader and a cell's `host` record: read as written, absent in older files, a bad field named. */
import { describe, expect, it } from 'vitest'
import type { CellHost } from '../../src/core/host.js'
import { readResults } from '../../src/store/index.js'
import { readProblems, storedCell, storedResults } from '../helpers/builders.js'

const WHERE = 'baseline-file ./base.json'

const HOST: CellHost = {
  preflight: {
    gpus: [
      {
        name: 'NVIDIA GB10',
        driver: '580.95.05',
        smClockMhz: 2405,
        temperatureC: 41,
        active: [],
        counters: { sw_thermal_slowdown: 0 },
      },
    ],
    cuda: '13.0',
    processes: [{ pid: 4242, name: 'python', ours: false }],
    memory: { availableBytes: 100, totalBytes: 200 },
    governors: ['performance'],
  },
  fingerprint: {
    driver: '580.95.05',
    cuda: '13.0',
    engine: '0.11.0',
    model: { bytes: 10, mtime: '2026-01-01T00:00:00.000Z' },
  },
  remeasured: [{ round: 1, reason: 'GPU 0 sw_thermal_slowdown +1.2s' }],
  changes: ['driver 580.95 → 590.10'],
}

function sample() {
  return storedResults('f00d', '2025-03-01T00:00:00Z', [
    storedCell('t/a', [{ decode: 50, ttft: 300 }]),
    storedCell('t/b', [{ decode: 40, ttft: 200 }]),
  ])
}

const problems = (text: string) => readProblems(text, WHERE)

describe('readResults: host', () => {
  it('reads the host record as written, and files without one as they are', () => {
    const file = sample()
    file.cells[0].host = HOST
    file.cells[1].host = { preflight: { noGpu: 'no GPU information: nvidia-smi not found' }, fingerprint: {} }
    expect(readResults(JSON.stringify(file), WHERE)).toEqual(file)
    expect(readResults(JSON.stringify(sample()), WHERE).cells[0].host).toBeUndefined()
  })

  it.each<[string, (h: any) => void, string]>([
    [
      'an unknown slowdown reason',
      (h) => (h.preflight.gpus[0].active = ['idle']),
      'cells[0].host.preflight.gpus[0].active[0]: expected one of "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_power_cap", got "idle"',
    ],
    [
      'a counter for an unknown reason',
      (h) => (h.preflight.gpus[0].counters = { idle: 3 }),
      'cells[0].host.preflight.gpus[0].counters.idle: not a slowdown reason (one of hw_slowdown, sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown, sw_power_cap)',
    ],
    [
      'a pid as text',
      (h) => (h.preflight.processes[0].pid = '4242'),
      'cells[0].host.preflight.processes[0].pid: expected a number, got "4242"',
    ],
    [
      'a driver as a number',
      (h) => (h.fingerprint.driver = 580),
      'cells[0].host.fingerprint.driver: expected a string, got 580',
    ],
    ['no fingerprint', (h) => delete h.fingerprint, 'cells[0].host.fingerprint: missing (expected an object)'],
  ])('%s', (_, edit, problem) => {
    const file = sample()
    const host = structuredClone(HOST)
    edit(host)
    file.cells[0].host = host
    expect(problems(JSON.stringify(file))).toEqual([`${WHERE}: ${problem}`])
  })
})
