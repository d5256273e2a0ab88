/**
 * The dashboard page in a real headless Chromium (Debian's, driven over the DevTools protocol pipe): it
 * renders 3 targets × 2 scenarios × 30 history entries from `file://`, sorting by a column reorders the
 * rows, hovering a chart shows the run's value, a hostile model name stays text, and loading it makes no
 * request but the document's own. A screenshot is written to the path the test prints.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatNumber } from '../../src/core/format.js'
import { metricKey } from '../../src/core/metrics.js'
import { renderDashboard, seriesOf, type DashboardInput } from '../../src/report/index.js'
import { CHART, xOf } from '../../src/report/pages/dashboard-chart.js'
import { dashboardInput, HOSTILE_MODEL } from '../../harness/dashboard-fixture.js'
import { launchBrowser, openPage, type Browser } from './cdp.js'
import { chromium } from './prereq.js'

const SCREENSHOT = process.env.LLM_BENCH_SCREENSHOT ?? '/tmp/dashboard.png'
const input = dashboardInput(3, 2, 30)

let browser: Browser
let session: string
let url: string
let requests: string[] = []
const dialogs: string[] = []

async function evaluateIn<T>(target: string, expression: string): Promise<T> {
  const reply = await browser.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, target)
  if (reply.exceptionDetails) throw new Error(`page script failed: ${JSON.stringify(reply.exceptionDetails)}`)
  return (reply.result as { value: T }).value
}

const evaluate = <T>(expression: string): Promise<T> => evaluateIn<T>(session, expression)

/** One cell whose decode tok/s went 28.4 → 28.5 over two runs, under the built-in 5% limit. */
function twoRuns(): DashboardInput {
  const small = dashboardInput(1, 1, 2)
  const id = small.baseline.cells[0].id
  const key = metricKey('decode', 'mean')
  const history = small.history.map((e, i) => ({
    ...e,
    cells: { ...e.cells, [id]: { ...e.cells[id], [key]: { steady: [28.4, 28.5][i], rounds: [] } } },
  }))
  return { ...small, history, shifts: {} }
}

interface Box {
  top: number
  bottom: number
  height: number
}

/** The first decode chart's on-screen boxes, and its line's first and last vertex, in CSS pixels. */
const GEOMETRY = `(function () {
  var svg = document.querySelector('svg.trend[data-metric="0"]');
  svg.scrollIntoView({ block: 'center' });
  var line = svg.querySelector('path.line'), matrix = line.getScreenCTM();
  var ends = [0, line.getTotalLength()].map(function (at) { var p = line.getPointAtLength(at); return new DOMPoint(p.x, p.y).matrixTransform(matrix); });
  var box = function (el) { var r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, width: r.width, height: r.height }; };
  return {
    chart: box(svg), band: box(svg.querySelector('.band')),
    points: ends.map(function (p) { return { x: p.x, y: p.y }; }),
    ticks: Array.from(svg.querySelectorAll('.ticks text')).map(function (t) { return t.textContent; }),
    unit: svg.querySelector('text.unit').textContent,
    note: svg.closest('figure').querySelector('.band-note').textContent
  };
})()`

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lbg-dashboard-'))
  browser = await launchBrowser(chromium().path)
  const html = renderDashboard(input)
  const page = await openPage(browser, { dir, name: 'index', html, width: 1760, dialogs, shots: dir, prefix: 'x' })
  ;({ session, url, requests } = page)
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

describe('the dashboard in headless Chromium', () => {
  it('renders every cell: 6 leaderboard rows, 6 cards, 12 trend charts with 30 runs each', async () => {
    const counts = await evaluate<number[]>(
      `[document.querySelectorAll('#leaderboard tbody tr').length, document.querySelectorAll('section.cell').length, document.querySelectorAll('svg.trend').length, Number(document.querySelector('svg.trend').getAttribute('data-n'))]`,
    )
    expect(counts).toEqual([6, 6, 12, 30])
    const pathLength = await evaluate<number>(`document.querySelector('svg.trend path.line').getTotalLength()`)
    expect(pathLength).toBeGreaterThan(CHART.width / 2)
  })

  it('sorting by Decode tok/s reorders the rows ascending, then descending', async () => {
    const ids = () =>
      evaluate<string[]>(
        `Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(function (tr) { return tr.getAttribute('data-id') })`,
      )
    const byDecode = [...input.baseline.cells]
      .sort((a, b) => a.metrics!.decode_tps.mean - b.metrics!.decode_tps.mean)
      .map((c) => c.id)
    const before = await ids()
    const click = `Array.from(document.querySelectorAll('#leaderboard th button')).find(function (b) { return b.textContent === 'Decode tok/s' }).click()`
    await evaluate(click)
    expect(await ids()).toEqual(byDecode)
    expect(byDecode).not.toEqual(before)
    await evaluate(click)
    expect(await ids()).toEqual([...byDecode].reverse())
  })

  it('hovering a chart point shows its value, commit and date', async () => {
    const box = await evaluate<{ id: string; left: number; top: number; width: number; height: number }>(
      `(function () { var svg = document.querySelector('svg.trend[data-cell="2"][data-metric="0"]'); svg.scrollIntoView({ block: 'center' }); var r = svg.getBoundingClientRect(); return { id: svg.closest('section').getAttribute('data-id'), left: r.left, top: r.top, width: r.width, height: r.height } })()`,
    )
    const index = 10
    const x = box.left + (xOf(index, 30) / CHART.width) * box.width
    await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y: box.top + box.height / 2 }, session)
    const tip = await evaluate<{ hidden: boolean; text: string }>(
      `(function () { var t = document.getElementById('tip'); return { hidden: t.hidden, text: t.textContent } })()`,
    )
    const value = formatNumber(seriesOf(input.history, box.id, 'decode')[index])
    expect(tip.hidden).toBe(false)
    expect(tip.text).toBe(`${value} tok/s · ${input.history[index].sha.slice(0, 7)} · 2026-01-11 00:00 UTC`)
    await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: 5, y: 5 }, session)
  })

  it('draws every chart with a y axis of numeric tick labels, its unit, and the gate’s band', async () => {
    const charts = await evaluate<{ ticks: string[]; unit: string; band: { width: number; height: number } }[]>(
      `Array.from(document.querySelectorAll('svg.trend')).map(function (svg) { var r = svg.querySelector('.band').getBoundingClientRect(); return { ticks: Array.from(svg.querySelectorAll('.ticks text')).map(function (t) { return t.textContent }), unit: svg.querySelector('text.unit').textContent, band: { width: r.width, height: r.height } } })`,
    )
    expect(charts).toHaveLength(12)
    for (const chart of charts) {
      expect(chart.ticks.length).toBeGreaterThanOrEqual(3)
      expect(chart.ticks.every((t) => /^[\d,]+(\.\d+)?$/.test(t))).toBe(true)
      expect(['tok/s', 'ms']).toContain(chart.unit)
      expect(chart.band.width).toBeGreaterThan(0)
      expect(chart.band.height).toBeGreaterThan(0)
    }
  })

  it('draws 28.4 → 28.5 tok/s as two points inside the 5% band, less than a tenth of the chart apart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lbg-dashboard-'))
    const html = renderDashboard(twoRuns())
    const page = await openPage(browser, {
      dir,
      name: 'two-runs',
      html,
      width: 1280,
      height: 800,
      shots: dir,
      prefix: 'x',
    })
    const tab = page.session
    const g = await evaluateIn<{
      chart: Box
      band: Box
      points: { x: number; y: number }[]
      ticks: string[]
      note: string
    }>(tab, GEOMETRY)
    expect(g.note).toBe("shaded: the gate's limit ±5% around the reference 28.4 tok/s")
    expect(g.ticks.length).toBeGreaterThanOrEqual(3)
    expect(g.points).toHaveLength(2)
    for (const p of g.points) {
      expect(p.y).toBeGreaterThan(g.band.top)
      expect(p.y).toBeLessThan(g.band.bottom)
    }
    expect(g.points[0].y).toBeGreaterThan(g.points[1].y)
    expect(g.points[0].y - g.points[1].y).toBeLessThan(g.chart.height / 10)
    // Hovering the second run puts the dot on its vertex and names its value.
    await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: g.points[1].x, y: g.points[1].y }, tab)
    const hover = await evaluateIn<{ text: string; dot: { y: number } }>(
      tab,
      `(function () { var r = document.querySelector('svg.trend[data-metric="0"] .dot').getBoundingClientRect(); return { text: document.getElementById('tip').textContent, dot: { y: r.top + r.height / 2 } } })()`,
    )
    expect(hover.text.startsWith('28.5 tok/s · ')).toBe(true)
    expect(Math.abs(hover.dot.y - g.points[1].y)).toBeLessThan(1)
  })

  it('keeps the hostile model name as text: no img element, no dialog', async () => {
    const page = await evaluate<{ imgs: number; models: string[] }>(
      `({ imgs: document.querySelectorAll('img').length, models: Array.from(document.querySelectorAll('#leaderboard tbody tr td:first-child')).map(function (td) { return td.firstChild.textContent }) })`,
    )
    expect(page.imgs).toBe(0)
    expect(page.models.filter((m) => m === HOSTILE_MODEL)).toHaveLength(2)
    expect(dialogs).toEqual([])
  })

  it('makes no network request while loading: only the file:// document itself', () => {
    expect(requests).toEqual([url])
  })

  it('saves a screenshot', async () => {
    await evaluate(`window.scrollTo(0, 0)`)
    const shot = await browser.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true }, session)
    await writeFile(SCREENSHOT, Buffer.from(String(shot.data), 'base64'))
    console.log(`dashboard screenshot: ${SCREENSHOT}`)
  })
})
