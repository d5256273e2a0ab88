/** The results reader and a round's host state (`rounds[].host`) with `verdict.disturbed`: read as written, absent in older files, a bad field named. */
import { describe, expect, it } from 'vitest'
import type { RoundHost } from '../../src/core/round-host.js'
import { readResults } from '../../src/store/index.js'
import { readProblems, storedCell, storedResults } from '../helpers/builders.js'

const WHERE = 'results.json'

const HOST: RoundHost = {
  uptimeS: 43896.07,
  launchAgeMs: 95_000,
  memory: { beforeBytes: 60, afterBytes: 58, minBytes: 57 },
  swap: { usedBytes: 0, inPages: 300, outPages: 0 },
  cpu: { busy: 0.62, cores: 8, top: [{ pid: 123, comm: 'stress', cores: 0.98 }] },
  gpuProcesses: [
    { pid: 5, name: 'python', gpu: 0 },
    { pid: 6, name: 'ollama', allowed: true },
  ],
  samples: 4,
  disturbed: ['stress (pid 123) used 98 % of a core during the round', '300 pages swapped in during the round'],
}

function sample() {
  const file = storedResults('f00d', '2025-03-01T00:00:00Z', [storedCell('t/a', [{ decode: 50, ttft: 300 }])])
  file.cells[0].rounds[0].host = HOST
  file.cells[0].verdict = { ...file.cells[0].verdict, disturbed: ['round 1: stress (pid 123) used 98 % of a core'] }
  return file
}

describe('readResults: rounds[].host and verdict.disturbed', () => {
  it('reads them as written, an attached engine too, and files without them as they are', () => {
    const file = sample()
    expect(readResults(JSON.stringify(file), WHERE)).toEqual(file)
    file.cells[0].rounds[0].host = { attached: true, samples: 2 }
    expect(readResults(JSON.stringify(file), WHERE)).toEqual(file)
    const old = storedResults('f00d', '2025-03-01T00:00:00Z', [storedCell('t/a', [{ decode: 50, ttft: 300 }])])
    expect(readResults(JSON.stringify(old), WHERE).cells[0].rounds[0].host).toBeUndefined()
  })

  it.each<[string, (f: ReturnType<typeof sample>) => void, string]>([
    [
      'a pid as text',
      (f) => ((f.cells[0].rounds[0].host!.cpu!.top[0] as { pid: unknown }).pid = '123'),
      'cells[0].rounds[0].host.cpu.top[0].pid: expected a number, got "123"',
    ],
    [
      'no sample count',
      (f) => delete (f.cells[0].rounds[0].host as Partial<RoundHost>).samples,
      'cells[0].rounds[0].host.samples: missing (expected a number)',
    ],
    [
      'a disturbance that is not text',
      (f) => ((f.cells[0].verdict as { disturbed: unknown }).disturbed = [3]),
      'cells[0].verdict.disturbed[0]: expected a string, got 3',
    ],
  ])('names %s', (_what, spoil, problem) => {
    const file = sample()
    spoil(file)
    expect(readProblems(JSON.stringify(file), WHERE).join('\n')).toContain(problem)
  })
})
