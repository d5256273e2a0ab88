/**
 * The dashboard a compare run writes next to its results (run/dashboard-links.ts `localDashboard`), for a run judged
 * by the real rules against a baseline file: the page names this run as what it is and the baseline file as the
 * baseline, draws this run as a point of its own after the history, the level line at the baseline's figure (not
 * between the baseline and this run), this run's regressed figure marked, and no axis below 0.
 */
import { describe, expect, it } from 'vitest'
import { MINUS } from '../../src/core/format.js'
import { renderDashboard } from '../../src/report/index.js'
import { localDashboard } from '../../src/run/dashboard-links.js'
import { dashboardInput } from '../../harness/dashboard-fixture.js'
import { decodeVerdict } from '../helpers/builders.js'
import { BASE_SHA, REGRESSED, RUN_SHA, localCompareRun } from '../helpers/local-run.js'

const run = localCompareRun()
const page = localDashboard(run.results, run.history, run.rules)!

/** The chart of `metric` (0 decode, 1 TTFT) in the card of `id`. */
function chart(html: string, id: string, metric: number): string {
  const card = new RegExp(`<section class="cell"[^>]*data-id="${id}">[^]*?</section>`).exec(html)![0]
  return new RegExp(`<svg class="trend"[^>]*data-metric="${metric}"[^]*?</svg>`).exec(card)![0]
}
const ticks = (svg: string) =>
  [...svg.matchAll(/<g class="ticks">(.*?)<\/g>/g)].flatMap((g) => [...g[1].matchAll(/>([^<]+)</g)].map((m) => m[1]))
const data = (html: string) =>
  JSON.parse(/<script type="application\/json" id="dashboard-data">([^<]*)<\/script>/.exec(html)![1]) as {
    commits: string[][]
    series: (string | null)[][][]
  }

describe('the dashboard of a local compare run', () => {
  it('names this run as local and the baseline file as the baseline, never this run’s commit', () => {
    const meta = /<p class="meta">(.*)<\/p>/.exec(page)![1]
    expect(meta).toContain(`this run (local) <code title="${RUN_SHA}">${RUN_SHA.slice(0, 12)}</code>`)
    expect(meta).toContain(
      `compared with baseline <code title="${BASE_SHA}">${BASE_SHA.slice(0, 12)}</code> (file base.json)`,
    )
    expect(meta).not.toMatch(/baseline <code title="c+"/)
    expect(page).toContain('Trends over 1 default-branch run and this run (local)</h2>')
    expect(page).toContain('◆</span> this run (local), not part of the history')
  })

  it('draws this run after the history, not as a vertex of its line, and carries it apart in the hover data', () => {
    const svg = chart(page, REGRESSED, 0)
    expect(svg).toContain('data-n="2"')
    // The history's line has its one run (a lone vertex, `h0`); this run is a diamond at the last slot.
    expect(/<path class="line" d="M64 (\d+)h0"\/>/.test(svg)).toBe(true)
    expect(svg).toMatch(/<path class="run-point regressed" d="M590 /)
    const d = data(page)
    expect(d.commits.map((c) => c[0])).toEqual([BASE_SHA.slice(0, 7), `${RUN_SHA.slice(0, 7)} this run (local)`])
    expect(d.series[0][0]).toEqual(['50.0', expect.stringMatching(/^4\d\.\d$/)])
  })

  it('marks the regressed figure, with its verdict in the title, and only that one', () => {
    const svg = chart(page, REGRESSED, 0)
    const title = /<path class="run-point regressed"[^>]*><title>([^<]*)<\/title>/.exec(svg)![1]
    expect(title).toMatch(/^this run \(local\): 4\d\.\d tok\/s · regression · decode tok\/s −1\d\.\d%/)
    expect(chart(page, REGRESSED, 1)).toContain('<path class="run-point" ')
    expect([...page.matchAll(/class="run-point regressed"/g)]).toHaveLength(1)
  })

  it('draws the level line and the band at the baseline’s figure, not midway to this run', () => {
    const svg = chart(page, REGRESSED, 0)
    const history = Number(/<path class="line" d="M64 (\d+)h0"/.exec(svg)![1])
    const reference = /<path class="reference" d="M64 (\d+)h\d+"><title>([^<]*)<\/title>/.exec(svg)!
    expect(Number(reference[1])).toBe(history)
    expect(reference[2]).toBe(
      `baseline 50.0 tok/s (${BASE_SHA.slice(0, 7)}, file base.json): decode tok/s as this run&#39;s verdict compared it`,
    )
    expect(page).toContain('shaded: the gate&#39;s limit ±5% around the reference 50.0 tok/s')
  })

  it('keeps every axis at or above 0: TTFT 20 ms under a 50 ms floor starts at 0 ms', () => {
    for (const id of [REGRESSED, 'q27-vllm/chat-4k']) {
      const labels = ticks(chart(page, id, 1))
      expect(labels[0]).toBe('0')
      expect(labels.some((t) => t.startsWith(MINUS) || t.startsWith('-'))).toBe(false)
    }
  })

  it('shows this run’s verdict and Δ in its table', () => {
    const heads = [...page.matchAll(/<button type="button">([^<]*)<\/button>/g)].map((m) => m[1]).slice(0, 5)
    expect(heads).toEqual(['Model', 'Scenario', 'Verdict', 'Δ decode', 'Δ TTFT'])
    expect(page).toMatch(/<td class="regression"[^>]*><span[^>]*>🔴 regression<\/span>/)
  })

  it('names a pull request’s run by its number', () => {
    const pr = localCompareRun({ event: 'pull_request', ref: 'refs/pull/12/merge' })
    const html = localDashboard(pr.results, pr.history, pr.rules)!
    expect(html).toContain('this run (PR #12) <code')
    expect(chart(html, REGRESSED, 0)).toContain('<title>this run (PR #12): ')
  })

  it('a run that writes the baseline is the newest history point, and the page names it the baseline', () => {
    const html = localDashboard(run.results, run.history, run.rules, true)!
    expect(html).not.toContain('<path class="run-point')
    expect(html).toContain(`baseline <code title="${RUN_SHA}">`)
    expect(data(html).commits.map((c) => c[0])).toEqual([BASE_SHA.slice(0, 7), RUN_SHA.slice(0, 7)])
  })
})

describe('the stored dashboard', () => {
  it('rings the newest run where the stored baseline’s own verdict was a regression', () => {
    const input = dashboardInput(1, 1, 4)
    const [cell] = input.baseline.cells
    const reason = 'decode tok/s −9.0% (limit 5%)'
    const regressed = {
      ...cell,
      verdict: decodeVerdict('regression', { current: 45.5, baseline: 50, delta: -0.09, reason }),
    }
    const html = renderDashboard({ ...input, baseline: { ...input.baseline, cells: [regressed] } })
    const svg = chart(html, cell.id, 0)
    expect(svg).toMatch(
      new RegExp(
        `<circle class="regressed-ring" cx="590" cy="\\d+" r="8"><title>regression · ${reason.replace(/[()]/g, '\\$&')}</title>`,
      ),
    )
    expect(chart(html, cell.id, 1)).not.toContain('<circle class="regressed-ring"')
    // A history whose newest run is not the baseline's: nothing to ring.
    const older = renderDashboard({
      ...input,
      baseline: { ...input.baseline, cells: [regressed] },
      history: input.history.slice(0, 3),
    })
    expect(older).not.toContain('<circle class="regressed-ring"')
  })
})
