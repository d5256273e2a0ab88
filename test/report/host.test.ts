/** The report's host section and the environment note: what the host said, escaped, and what changed next to a regression. */
import { describe, expect, it } from 'vitest'
import type { CellHost } from '../../src/core/host.js'
import { renderReport } from '../../src/report/index.js'
import { hostSection } from '../../src/report/markdown/host-section.js'
import { CTX, judged, measured } from '../helpers/builders.js'

const HOST: CellHost = {
  preflight: {
    gpus: [{ name: 'NVIDIA GB10', smClockMhz: 2405, maxSmClockMhz: 3003, temperatureC: 41, powerW: 11.5, active: [] }],
    processes: [{ pid: 77, name: '<img src=x> @octocat | python', ours: true }],
    memory: { availableBytes: 100 * 1024 ** 3, totalBytes: 128 * 1024 ** 3 },
  },
  fingerprint: { driver: '590.10', cuda: '13.0', engine: 'v`0.12`' },
  remeasured: [{ round: 2, reason: 'GPU 0 hw_slowdown active' }],
  changes: ['driver 580.95 → 590.10'],
}

describe('host section', () => {
  it('one entry per target: GPU, processes, memory, governor, fingerprint, rounds measured again; engine text escaped', () => {
    const a = measured('t/a', { decode: 50, ttft: 400 }, { host: HOST })
    const b = measured('t/b', { decode: 50, ttft: 400 }, { host: { ...HOST, remeasured: [{ round: 0, reason: 'x' }] } })
    const text = hostSection([a, b])!
    expect(text).toContain('Host (1 target)')
    expect(text).toContain('GPU 0 NVIDIA GB10: SM 2405/3003 MHz, 41 °C, 11.5 W, no slowdown')
    expect(text).toContain('GPU processes: pid 77 &lt;img src=x&gt; @&#8203;octocat \\| python (ours)')
    expect(text).toContain('memory 100GiB available of 128GiB; no CPU governor (no cpufreq)')
    expect(text).toContain('environment: driver 590.10 · CUDA 13.0 · engine v\\`0.12\\`')
    expect(text).toContain('changed since the baseline: driver 580.95 → 590.10')
    expect(text).toContain('round 3 measured again: GPU 0 hw\\_slowdown active')
    expect(text).toContain('**t/b**: round 1 measured again: x')
    expect(text).not.toContain('<img')
  })

  it('no host records, no section', () => {
    expect(hostSection([measured('t/a', { decode: 50, ttft: 400 })])).toBeUndefined()
  })

  it('a regression is listed with the environment change that may explain it', () => {
    const slow = measured('t/a', { decode: 40, ttft: 400 }, { host: HOST })
    const report = renderReport(judged([slow], ['regression']), CTX, 65_536)
    expect(slow.verdict.status).toBe('regression')
    const line = report.split('\n').find((l) => l.includes('**t/a**') && l.includes('decode'))!
    expect(line).toContain('environment changed: driver 580.95 → 590.10')
  })
})
