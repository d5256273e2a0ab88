/**
 * A verdict reached on a disturbed box in the report: next to the status in the table, at the end of the cell's
 * verdict line, under the headline, and each steady round's host state in the Rounds section; a process's own name is
 * escaped. A cell on a quiet box shows none of it.
 */
import { describe, expect, it } from 'vitest'
import type { RoundHost } from '../../src/core/round-host.js'
import type { CellResult } from '../../src/core/results.js'
import { renderReport } from '../../src/report/index.js'
import { boxLines } from '../../src/report/markdown/box-lines.js'
import { flatCell, resultsFile } from '../helpers/builders.js'

const GIB = 1024 ** 3
const host: RoundHost = {
  uptimeS: 2 * 86_400,
  launchAgeMs: 95_000,
  memory: { beforeBytes: 60 * GIB, afterBytes: 58 * GIB, minBytes: 57.5 * GIB },
  swap: { usedBytes: 0, inPages: 0, outPages: 0 },
  cpu: { busy: 0.62, cores: 8, top: [{ pid: 123, comm: 'stress', cores: 0.98 }] },
  samples: 4,
  disturbed: ['stress (pid 123) used 98 % of a core during the round'],
}

function disturbedCell(status: 'pass' | 'regression' = 'pass'): CellResult {
  const c = flatCell('t/chat', { decode: 50 }, 3, 1)
  c.rounds[1].host = host
  c.rounds[2].host = { ...host, disturbed: undefined }
  c.verdict = { status, metrics: {}, disturbed: ['round 2: stress (pid 123) used 98 % of a core during the round'] }
  return c
}

function report(cells: CellResult[], verdict: 'pass' | 'regression' = 'pass') {
  const counts = Object.fromEntries(cells.map((c) => [c.verdict.status, 1]))
  const results = { ...resultsFile(cells), summary: { verdict, regressions: 0, counts } }
  return renderReport(results, { configPath: 'bench.yml', mode: 'compare' }, 1024 * 1024)
}

describe('a verdict on a disturbed box in the report', () => {
  it('marks the row, ends the verdict line, warns under the headline and shows each round', () => {
    const text = report([disturbedCell()])
    expect(text).toContain('| ✅ pass · ⚠️ box disturbed |')
    expect(text).toContain(
      '- ✅ **t/chat**: ⚠️ box disturbed, not a clean pass: round 2: stress (pid 123) used 98 % of a core during the round',
    )
    expect(text).toContain(
      '> [!WARNING]\n> The box was disturbed during the rounds of 1 cell: their verdicts stand, measured beside other load. 1 pass among them is not clean.\n> - `t/chat` (pass): round 2: stress (pid 123) used 98 % of a core during the round',
    )
    expect(text).toContain(
      '- round 1: box up 48h · engine launched 1m35s before · available 60GiB → 58GiB (min 57.5GiB) · swap 0B, 0 in/0 out pages · 62% of 8 CPUs busy · others: stress (pid 123) 98% of a core · ⚠️ stress (pid 123) used 98 % of a core during the round',
    )
  })

  it('gives an uptime and a launch age past a minute to the second, not to the hundredth /proc/uptime has', () => {
    const c = disturbedCell()
    c.rounds[1].host = { ...host, uptimeS: 49_250.13, launchAgeMs: 61_499.7, disturbed: undefined }
    expect(report([c])).toContain('- round 1: box up 13h40m50s · engine launched 1m1s before ·')
  })

  it('does not call a regression under a disturbed box a clean pass, and says nothing on a quiet box', () => {
    expect(report([disturbedCell('regression')], 'regression')).toContain(
      '⚠️ box disturbed: round 2: stress (pid 123) used',
    )
    const quiet = report([flatCell('t/chat', { decode: 50 }, 3, 1, { verdict: { status: 'pass', metrics: {} } })])
    expect(quiet).not.toContain('box disturbed')
    expect(quiet).not.toContain('[!WARNING]')
  })

  it("escapes a process's own name and says when the engine was not launched by this run", () => {
    const hostile: RoundHost = {
      attached: true,
      samples: 2,
      cpu: { busy: 1, cores: 2, top: [{ pid: 9, comm: '<img src=x>@team', cores: 1.5 }] },
    }
    const line = boxLines([{ ...flatCell('t/s', { decode: 1 }, 1, 0).rounds[0], host: hostile }])
    expect(line).toBe(
      '- round 0: box engine not launched by this run · 100% of 2 CPUs busy · others: &lt;img src=x&gt;@&#8203;team (pid 9) 150% of a core',
    )
  })
})
