/**
 * The HTML pages lead with the verdict, in a real headless Chromium at 800 and 1,280 CSS pixels: the demo run
 * (fixtures/demo.yml against fixtures/demo-baseline.json, the pipeline called in this process as a local compare run,
 * so the pages come from src/) and a 50-cell run with a long model name and an SLO. On the leaderboard the Verdict
 * and Δ columns lie inside the viewport and the document never scrolls sideways, not even with every figure shown;
 * the demo's dashboard names this run as local and the baseline file as its baseline, draws this run as a point of
 * its own, marks its regression, and has no TTFT tick below 0. Screenshots go to LLM_BENCH_SCREENSHOT_DIR.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULTS, type ActionOptions } from '../../src/config/inputs.js'
import { renderLeaderboard } from '../../src/report/index.js'
import { runPipeline } from '../../src/run/pipeline.js'
import { matrix } from '../helpers/builders.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import { ROOT } from '../helpers/action.js'
import { launchBrowser, openPage, type Browser } from './cdp.js'
import { chromium } from './prereq.js'

const SHOTS = process.env.LLM_BENCH_SCREENSHOT_DIR ?? tmpdir()
const WIDTHS = [800, 1280] as const
const SHA = '6c3c545405c487bb8835a14fe5ee4d9370c8fe42'
const LONG_MODEL = 'Qwen3.6-35B-A3B-Instruct-2607-NVFP4-with-a-very-long-unbroken-checkpoint-name'

interface Box {
  label: string
  left: number
  right: number
}

interface Layout {
  innerWidth: number
  scrollWidth: number
  /** The header cells a reader sees (hidden ones left out), left to right. */
  heads: Box[]
  /** Every shown cell of the Verdict column's rows. */
  verdictCells: Box[]
  extrasShown: number
  /** How far the table's own box scrolls sideways. */
  tableOverflow: number
}

const LAYOUT = `(function () {
  var box = function (el) { var r = el.getBoundingClientRect(); return { label: el.textContent.trim(), left: r.left, right: r.right }; };
  var shown = function (el) { return getComputedStyle(el).display !== 'none'; };
  var heads = Array.from(document.querySelectorAll('#leaderboard thead th')).filter(shown);
  var verdict = heads.findIndex(function (th) { return th.textContent.trim() === 'Verdict'; });
  var all = Array.from(document.querySelectorAll('#leaderboard thead th'));
  var column = all.indexOf(heads[verdict]);
  return {
    innerWidth: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    heads: heads.map(box),
    verdictCells: Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(function (tr) { return box(tr.cells[column]); }),
    extrasShown: Array.from(document.querySelectorAll('#leaderboard th.extra')).filter(shown).length,
    tableOverflow: (function (w) { return w.scrollWidth - w.clientWidth; })(document.querySelector('.table-wrap'))
  };
})()`

let browser: Browser
let dir: string
let demo: { leaderboard: string; dashboard: string }

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lbg-pages-'))
  browser = await launchBrowser(chromium().path)
  const out = join(dir, 'demo-results')
  const result = await runPipeline({
    options: {
      ...DEFAULTS,
      mode: 'compare',
      config: 'fixtures/demo.yml',
      baselineFile: 'fixtures/demo-baseline.json',
      resultsDir: out,
    } as ActionOptions,
    context: { event: 'local', sha: SHA, ref: 'refs/heads/feature', runUrl: '' },
    log: memoryLogger(),
    toolVersion: 'test',
    cwd: ROOT,
  })
  expect(result.verdict).toBe('regression')
  demo = {
    leaderboard: await readFile(join(out, 'leaderboard.html'), 'utf8'),
    dashboard: await readFile(join(out, 'dashboard', 'index.html'), 'utf8'),
  }
}, 170_000)

afterAll(async () => {
  await browser?.close()
})

function expectVerdictFirst(label: string, layout: Layout): void {
  console.log(
    `${label}: ${layout.heads.map((h) => `${h.label} ${Math.round(h.left)}–${Math.round(h.right)}`).join(', ')}; ` +
      `page ${layout.scrollWidth} of ${layout.innerWidth} px`,
  )
  expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth)
  const wanted = ['Verdict', 'Δ decode', 'Δ TTFT']
  const heads = layout.heads.filter((h) => wanted.includes(h.label))
  expect(heads.map((h) => h.label)).toEqual(wanted)
  for (const box of [...heads, ...layout.verdictCells]) {
    expect(box.left, box.label).toBeGreaterThanOrEqual(0)
    expect(box.right, box.label).toBeLessThanOrEqual(layout.innerWidth)
  }
}

async function checkLeaderboard(name: string, html: string, width: number): Promise<void> {
  const page = await openPage(browser, {
    dir,
    name: `${name}-${width}`,
    html,
    width,
    height: 900,
    shots: SHOTS,
    prefix: 'pages',
  })
  await page.shot(`${name}-${width}`)
  const layout = await page.evaluate<Layout>(LAYOUT)
  expectVerdictFirst(`${name} at ${width} px`, layout)
  // As the page opens, nothing scrolls sideways, not even the table inside its box.
  expect(layout.tableOverflow).toBeLessThanOrEqual(0)
  expect(layout.extrasShown).toBe(0)
  // Every figure shown: the table scrolls inside its own box, the page still does not, the verdict stays in view.
  await page.evaluate(`document.getElementById('all-figures').click()`)
  const all = await page.evaluate<Layout>(LAYOUT)
  expect(all.extrasShown).toBeGreaterThanOrEqual(8)
  expectVerdictFirst(`${name} at ${width} px, every figure`, all)
  expect(page.requests).toEqual([page.url])
}

describe('the leaderboard leads with the verdict', () => {
  for (const width of WIDTHS) {
    it(`the demo's leaderboard at ${width} px`, () => checkLeaderboard('demo-leaderboard', demo.leaderboard, width))

    it(`a 50-cell leaderboard with a long model name and an SLO at ${width} px`, async () => {
      const { results } = matrix(10, 5, (i) => (i === 7 || i === 31 ? 'regression' : i === 12 ? 'flagged' : 'pass'))
      results.cells[0].model = LONG_MODEL
      const slo = { ttftMs: 500 }
      results.cells[3] = {
        ...results.cells[3],
        workload: { ...results.cells[3].workload, slo },
        metrics: { ...results.cells[3].metrics!, goodput: 0.93, request_goodput: 1.2 },
      }
      const html = renderLeaderboard(results)
      expect(html).toContain('>Goodput</button>')
      await checkLeaderboard('fifty', html, width)
    })
  }
})

interface DashboardView {
  scrollWidth: number
  innerWidth: number
  meta: string
  runPoints: number
  regressed: string[]
  ttftTicks: number[]
  heads: string[]
}

const DASHBOARD = `(function () {
  var number = function (t) { return Number(t.textContent.replace(/,/g, '').replace('\\u2212', '-')); };
  return {
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    meta: document.querySelector('header .meta').textContent,
    runPoints: document.querySelectorAll('svg.trend path.run-point').length,
    regressed: Array.from(document.querySelectorAll('svg.trend path.run-point.regressed title')).map(function (t) { return t.textContent; }),
    ttftTicks: [].concat.apply([], Array.from(document.querySelectorAll('svg.trend[data-metric="1"] .ticks')).map(function (g) { return Array.from(g.querySelectorAll('text')).map(number); })),
    heads: Array.from(document.querySelectorAll('#leaderboard thead th')).filter(function (th) { return getComputedStyle(th).display !== 'none'; }).map(function (th) { return th.textContent.trim(); })
  };
})()`

describe("the demo's dashboard, a local compare run", () => {
  for (const width of WIDTHS) {
    it(`names this run as local and the baseline file as its baseline, marks the regression, no TTFT tick below 0, at ${width} px`, async () => {
      const page = await openPage(browser, {
        dir,
        name: `dashboard-${width}`,
        html: demo.dashboard,
        width,
        height: 900,
        shots: SHOTS,
        prefix: 'pages',
      })
      await page.shot(`demo-dashboard-${width}`)
      const view = await page.evaluate<DashboardView>(DASHBOARD)
      expect(view.scrollWidth).toBeLessThanOrEqual(view.innerWidth)
      expect(view.meta).toContain(`this run (local) ${SHA.slice(0, 12)}`)
      expect(view.meta).toContain('compared with baseline 000000000000 (file fixtures/demo-baseline.json)')
      expect(view.meta).not.toContain(`baseline ${SHA.slice(0, 12)}`)
      expect(view.heads.slice(0, 5)).toEqual(['Model', 'Scenario', 'Verdict', 'Δ decode', 'Δ TTFT'])
      // 7 cells × (decode, TTFT, startup, energy): this run's own point on every chart.
      expect(view.runPoints).toBeGreaterThanOrEqual(14)
      expect(view.regressed.length).toBeGreaterThanOrEqual(1)
      expect(view.regressed.every((t) => t.startsWith('this run (local): ') && t.includes(' · regression'))).toBe(true)
      expect(view.ttftTicks.length).toBeGreaterThanOrEqual(7 * 3)
      expect(Math.min(...view.ttftTicks)).toBeGreaterThanOrEqual(0)
      expect(page.requests).toEqual([page.url])
    })
  }

  it('hovering this run’s point names it as this run, not as a default-branch run', async () => {
    const page = await openPage(browser, {
      dir,
      name: 'dashboard-hover',
      html: demo.dashboard,
      width: 1280,
      height: 900,
      shots: SHOTS,
      prefix: 'pages',
    })
    const at = await page.evaluate<{ x: number; y: number }>(
      `(function () { var p = document.querySelector('svg.trend path.run-point'); p.scrollIntoView({ block: 'center' }); var r = p.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`,
    )
    await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: at.x, y: at.y }, page.session)
    const tip = await page.evaluate<string>(`document.getElementById('tip').textContent`)
    expect(tip).toMatch(/ tok\/s · 6c3c545 this run \(local\) · \d{4}-\d\d-\d\d \d\d:\d\d UTC$/)
    const dot = await page.evaluate<{ x: number; y: number }>(
      `(function () { var r = document.querySelector('svg.trend path.run-point').closest('svg').querySelector('.dot').getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`,
    )
    expect(Math.abs(dot.x - at.x)).toBeLessThan(2)
    expect(Math.abs(dot.y - at.y)).toBeLessThan(2)
  })
})
