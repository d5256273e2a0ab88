import { describe, expect, it } from 'vitest'
import { renderReport, sparkline } from '../../src/report/index.js'
import { cellsTable } from '../../src/report/table.js'
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
})
