import { describe, expect, it } from 'vitest'
import { renderDashboard, renderHardwareIndex } from '../../src/report/index.js'
import { DATA_ID } from '../../src/report/pages/dashboard-script.js'
import { dashboardInput, HOSTILE_MODEL } from '../../harness/dashboard-fixture.js'

const input = dashboardInput(3, 2, 30)
const html = renderDashboard(input)
const data = () =>
  JSON.parse(new RegExp(`<script type="application/json" id="${DATA_ID}">([^<]*)</script>`).exec(html)![1]) as {
    commits: string[][]
    series: (string | null)[][][]
  }

describe('renderDashboard', () => {
  it('stays under 300 KB for 50 cells × 100 history entries', () => {
    const bytes = Buffer.byteLength(renderDashboard(dashboardInput(10, 5, 100)))
    expect(bytes).toBeLessThan(300_000)
  })

  it('has one leaderboard row and one chart card per baseline cell, with the baseline columns and no per-run Δ', () => {
    const rows = [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1])
    expect(rows).toHaveLength(6)
    expect([...html.matchAll(/<section class="cell"/g)]).toHaveLength(6)
    expect([...html.matchAll(/<svg class="trend"/g)]).toHaveLength(12)
    const heads = [...html.matchAll(/<button type="button">([^<]*)<\/button>/g)].map((m) => m[1])
    expect(heads).toEqual([
      'Model',
      'Scenario',
      'Runtime',
      'Quant',
      'Decode tok/s',
      'TTFT avg ms',
      'TTFT p99 ms',
      'TPOT avg ms',
      'TPOT p99 ms',
      'Total tok/s',
      'Output tok/s',
      'Per-user tok/s',
    ])
    // The stored baseline has no Δ to carry its headline figures: decode and TTFT show at once, the rest on request.
    const extra = [...html.matchAll(/<th scope="col"([^>]*)>/g)].map((m) => /\bextra\b/.test(m[1]))
    expect(extra).toEqual([false, false, true, true, false, false, true, true, true, true, true, true])
  })

  it('keeps a hostile model name as text: escaped in the table, the cards and the data block', () => {
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(data().series).toHaveLength(6)
    expect(JSON.stringify(input.baseline.cells.map((c) => c.model))).toContain(HOSTILE_MODEL)
  })

  it('loads nothing from elsewhere: no external script, style, image, font or frame', () => {
    // url(#…) names an element of the page itself (the trend lines' point marker); any other url() is a request.
    expect(html).not.toMatch(/<script[^>]+src=|<link\b|<img\b|<iframe\b|@import|url\((?!#)/i)
    expect(html).toContain('<marker id="trend-point"')
    // No element has a src attribute (attribute values, which may quote engine text, set aside).
    expect(html.replace(/"[^"]*"/g, '""')).not.toMatch(/<[a-z][^>]*\ssrc=/i)
  })

  it('marks the decode level shift in every cell and carries each run’s commit, date and formatted value', () => {
    const shifts = [...html.matchAll(/data-metric="0"[^>]*>(<line class="shift"[^>]*>)/g)]
    expect(shifts).toHaveLength(6)
    const d = data()
    expect(d.commits).toHaveLength(30)
    expect(d.commits[0]).toEqual([input.history[0].sha.slice(0, 7), '2026-01-01 00:00 UTC'])
    expect(d.series[0][0]).toHaveLength(30)
    expect(d.series[0][0].every((v) => typeof v === 'string' && /^[\d.,]+$/.test(v))).toBe(true)
  })

  it('charts energy per token where the runs recorded it, and nothing where they did not', () => {
    const small = dashboardInput(1, 2, 4)
    const id = small.baseline.cells[0].id
    const history = small.history.map((e, i) => ({
      ...e,
      cells: { ...e.cells, [id]: { ...e.cells[id], energy_j_per_token: { steady: 0.4 + i / 100, rounds: [] } } },
    }))
    const page = renderDashboard({ ...small, history })
    const energy = [...page.matchAll(/<svg class="trend"[^>]*data-metric="3"/g)]
    expect(energy).toHaveLength(1)
    // No gate names energy: the band is the default 5% around the median of the 4 runs, and the caption says so.
    expect(page).toContain(
      'energy per token <span class="dim">0.430 J/token</span><span class="band-note">shaded: the default limit ±5% around the reference 0.415 J/token (not in the gate)</span>',
    )
    expect(renderDashboard(small)).not.toMatch(/data-metric="3"/)
  })

  it("charts goodput in percent with the gate's points as its band, only where runs recorded it", () => {
    const small = dashboardInput(1, 2, 4)
    const [cell] = small.baseline.cells
    const history = small.history.map((e, i) => ({
      ...e,
      cells: {
        ...e.cells,
        [cell.id]: { ...e.cells[cell.id], goodput: { steady: [0.96, 0.94, 0.98, 0.95][i], rounds: [] } },
      },
    }))
    const gates = { [cell.target]: { ...small.gates?.[cell.target], goodput: { maxDrop: 0.05 } } }
    const page = renderDashboard({ ...small, history, gates })
    const charts = [...page.matchAll(/<svg class="trend"[^>]*data-metric="4"[^]*?<\/svg>/g)].map((m) => m[0])
    expect(charts).toHaveLength(1)
    // Median of the 4 runs 95.5 %, ± 5 points, stopping at 100 %: the axis holds 90.5–100 %, labelled in percent.
    expect(page).toContain(
      'goodput <span class="dim">95.0 %</span><span class="band-note">shaded: the gate&#39;s limit of 5 points around the reference 95.5 %</span>',
    )
    const ticks = [...charts[0].matchAll(/<text x="\d+" y="\d+">([^<]+)<\/text>/g)].map((m) => Number(m[1]))
    expect(Math.min(...ticks)).toBeLessThanOrEqual(90.5)
    expect(Math.max(...ticks)).toBe(100)
    // Without a gate naming goodput, the registry's default 5 points, said as such.
    expect(renderDashboard({ ...small, history, gates: {} })).toContain(
      'shaded: the default limit of 5 points around the reference 95.5 % (no gate given)',
    )
    expect(renderDashboard(small)).not.toMatch(/data-metric="4"/)
  })

  it('offers filters by engine, quant and scenario from the cells', () => {
    const options = (key: string) =>
      [...new RegExp(`<select id="filter-${key}">(.*?)</select>`).exec(html)![1].matchAll(/value="([^"]*)"/g)].map(
        (m) => m[1],
      )
    expect(options('engine')).toEqual(['', 'llamacpp', 'sglang', 'vllm'])
    expect(options('quant')).toEqual(['', 'fp8', 'nvfp4', 'Q4_K_M'])
    expect(options('scenario')).toEqual(['', 's0', 's1'])
  })
})

describe('renderHardwareIndex', () => {
  it('lists every hardware key with its latest update, linking its dashboard, names escaped', () => {
    const page = renderHardwareIndex([
      { hardware: 'nvidia-gb10', updated: '2026-02-03T04:05:00Z', sha: 'a'.repeat(40), cells: 6 },
      { hardware: 'cpu' },
    ])
    expect([...page.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1])).toEqual([
      'cpu/index.html',
      'nvidia-gb10/index.html',
    ])
    expect(page).toContain('2026-02-03 04:05 UTC')
  })
})
