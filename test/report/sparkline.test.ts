import { describe, expect, it } from 'vitest'
import { LINK_ROOM, renderReport, sparkline, withDashboardLink } from '../../src/report/index.js'
import { cellsTable } from '../../src/report/markdown/table.js'
import { flatCell, resultsFile } from '../helpers/builders.js'

describe('sparkline', () => {
  it.each<[number[], string]>([
    [[1, 2, 3, 4, 5, 6, 7, 8], '▁▂▃▄▅▆▇█'],
    [[10, 10, 10], '▄▄▄'],
    [[50, 40], '█▁'],
    [[5], ''],
    [[], ''],
  ])('%j → %s', (values, text) => {
    expect(sparkline(values)).toBe(text)
  })

  it('shows only the most recent runs', () => {
    expect(sparkline(Array.from({ length: 30 }, (_, i) => i))).toHaveLength(12)
  })
})

describe('the comment with history', () => {
  const cell = flatCell('t/chat', { decode: 45, ttft: 300, output: 300 })
  const results = resultsFile([cell])

  it('puts the sparkline of the cell’s recent main history next to its decode Δ', () => {
    const table = cellsTable([cell], { 't/chat': [40, 42, 44, 46] })
    const row = table.split('\n')[2]
    expect(row).toMatch(/45\.0[^|]*▁▃▆█/)
    expect(cellsTable([cell])).not.toMatch(/[▁▂▃▄▅▆▇█]/)
  })

  it('links the dashboard when there is one, and only an http(s) URL', () => {
    const ctx = { configPath: 'bench.yml', mode: 'compare' }
    expect(
      renderReport(results, { ...ctx, dashboardUrl: 'https://octo.github.io/repo/gb10/index.html' }, 65_536),
    ).toContain('📈 [Dashboard](https://octo.github.io/repo/gb10/index.html)')
    expect(renderReport(results, { ...ctx, dashboardUrl: 'javascript:alert(1)' }, 65_536)).not.toContain('Dashboard')
    expect(renderReport(results, ctx, 65_536)).not.toContain('Dashboard')
  })

  it('the full form carries the link last: the report without it, rendered LINK_ROOM under the limit, plus its line', () => {
    const ctx = { configPath: 'bench.yml', mode: 'compare' }
    const url = 'https://octo.github.io/repo/gb10/index.html'
    const linked = renderReport(results, { ...ctx, dashboardUrl: url }, 65_536)
    const plain = renderReport(results, ctx, 65_536 - LINK_ROOM)
    expect(linked).toBe(withDashboardLink(plain, url))
    expect(linked).toBe(
      `${plain}\n📈 [Dashboard](${url}): every cell's decode and TTFT over the default branch's runs.\n`,
    )
    // A line longer than the room kept for it is left out rather than pushing the report past its limit.
    expect(withDashboardLink(plain, `https://octo.github.io/${'x'.repeat(LINK_ROOM)}`)).toBe(plain)
  })
})
