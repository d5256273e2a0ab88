/**
 * The dashboard page in a real headless Chromium (Debian's, driven over the DevTools protocol pipe): it
 * renders 3 targets × 2 scenarios × 30 history entries from `file://`, sorting by a column reorders the
 * rows, hovering a chart shows the run's value, a hostile model name stays text, and loading it makes no
 * request but the document's own. A screenshot is written to the path the test prints.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatNumber } from '../../src/core/format.js'
import { renderDashboard, seriesOf } from '../../src/report/index.js'
import { CHART, xOf } from '../../src/report/dashboard-chart.js'
import { dashboardInput, HOSTILE_MODEL } from '../../harness/dashboard-fixture.js'
import { launchBrowser, type Browser } from './cdp.js'
import { chromium } from './prereq.js'

const SCREENSHOT = process.env.LLM_BENCH_SCREENSHOT ?? '/tmp/dashboard.png'
const input = dashboardInput(3, 2, 30)

let browser: Browser
let session: string
let url: string
const requests: string[] = []
const dialogs: string[] = []

async function evaluate<T>(expression: string): Promise<T> {
  const reply = await browser.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, session)
  if (reply.exceptionDetails) throw new Error(`page script failed: ${JSON.stringify(reply.exceptionDetails)}`)
  return (reply.result as { value: T }).value
}

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lbg-dashboard-'))
  const file = join(dir, 'index.html')
  await writeFile(file, renderDashboard(input))
  url = pathToFileURL(file).href
  browser = await launchBrowser(chromium().path)
  const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' })
  session = String((await browser.send('Target.attachToTarget', { targetId, flatten: true })).sessionId)
  let loaded!: () => void
  const load = new Promise<void>((done) => (loaded = done))
  browser.on((m) => {
    if (m.sessionId !== session) return
    if (m.method === 'Network.requestWillBeSent') requests.push(String((m.params!.request as { url: string }).url))
    if (m.method === 'Page.loadEventFired') loaded()
    if (m.method === 'Page.javascriptDialogOpening') {
      dialogs.push(String(m.params!.message))
      void browser.send('Page.handleJavaScriptDialog', { accept: true }, session)
    }
  })
  for (const domain of ['Page.enable', 'Network.enable', 'Runtime.enable']) await browser.send(domain, {}, session)
  await browser.send(
    'Emulation.setDeviceMetricsOverride',
    { width: 1760, height: 1000, deviceScaleFactor: 1, mobile: false },
    session,
  )
  await browser.send('Page.navigate', { url }, session)
  await load
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
    const pathLength = await evaluate<number>(`document.querySelector('svg.trend path').getTotalLength()`)
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

  it('keeps the hostile model name as text: no img element, no dialog', async () => {
    const page = await evaluate<{ imgs: number; models: string[] }>(
      `({ imgs: document.querySelectorAll('img').length, models: Array.from(document.querySelectorAll('#leaderboard tbody tr td:first-child')).map(function (td) { return td.textContent }) })`,
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
