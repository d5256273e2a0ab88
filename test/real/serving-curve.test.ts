/**
 * The serving curve (SPEC §16) in a real headless Chromium, on the run's leaderboard page and on the dashboard, both
 * built from a sweep of four concurrencies on two targets: one path per target and side, each point drawn where the
 * measured figures are (read back from the rendered page and turned into figures again through the axis the page
 * labels), every point on its path, the hostile model name left as text, nothing loaded from elsewhere, and no
 * horizontal overflow at a desktop and at a phone's width. Screenshots go to the paths the test prints.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { renderDashboard, renderLeaderboard } from '../../src/report/index.js'
import { CURVE } from '../../src/report/serving-curve.js'
import { CONCURRENCIES, SWEEP_MODEL, TARGETS, sweepDashboard, sweepRun } from '../../harness/sweep-fixture.js'
import { launchBrowser, openPage, type Browser, type Page } from './cdp.js'
import { chromium } from './prereq.js'

const SHOTS = process.env.LLM_BENCH_SCREENSHOT_DIR ?? tmpdir()

let browser: Browser
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lbg-curve-'))
  browser = await launchBrowser(chromium().path)
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

/** Opens `html` in a fresh tab `width` CSS pixels wide; screenshots are named `serving-curve-<label>.png`. */
const open = (name: string, html: string, width: number): Promise<Page> =>
  openPage(browser, { dir, name, html, width, shots: SHOTS, prefix: 'serving-curve' })

interface Drawn {
  target: string
  side: string
  concurrency: number
  /** The point's rendered centre in the SVG's own coordinates (from its box on screen, through the inverse CTM). */
  x: number
  y: number
  cx: number
  cy: number
  /** Whether the rendered centre lies on its target's path of the same side (within half a unit). */
  onPath: boolean
}

/** What the page drew: per path its target and side, per point where it landed, and the labels of the axes' ticks. */
const READ = `(function () {
  var svg = document.querySelector('svg.curve');
  var inverse = svg.getScreenCTM().inverse();
  var paths = Array.from(svg.querySelectorAll('path[data-target]')).map(function (p) {
    return { target: p.getAttribute('data-target'), side: p.getAttribute('data-side'), length: p.getTotalLength() };
  });
  var points = Array.from(svg.querySelectorAll('circle.point')).map(function (c) {
    var r = c.getBoundingClientRect();
    var at = new DOMPoint(r.left + r.width / 2, r.top + r.height / 2).matrixTransform(inverse);
    var target = c.getAttribute('data-target'), side = c.getAttribute('data-side');
    var path = Array.from(svg.querySelectorAll('path[data-target]')).find(function (p) {
      return p.getAttribute('data-target') === target && p.getAttribute('data-side') === side;
    });
    // Distance from the rendered centre to the path's geometry (dashes aside), sampled every quarter unit.
    var near = Infinity;
    for (var l = 0, n = path.getTotalLength(); l <= n + 0.25; l += 0.25) {
      var q = path.getPointAtLength(Math.min(l, n));
      near = Math.min(near, Math.hypot(q.x - at.x, q.y - at.y));
    }
    return { target: target, side: side, concurrency: Number(c.getAttribute('data-concurrency')), x: at.x, y: at.y,
      cx: c.cx.baseVal.value, cy: c.cy.baseVal.value, onPath: near < 0.5 };
  });
  var ticks = function (axis) {
    return Array.from(svg.querySelectorAll('g.' + axis + '-axis text.tick')).map(function (t) { return t.textContent; });
  };
  return { paths: paths, points: points, x: ticks('x'), y: ticks('y') };
})()`

interface Reading {
  paths: { target: string; side: string; length: number }[]
  points: Drawn[]
  x: string[]
  y: string[]
}

/** Figures back from SVG coordinates, through the axis as its tick labels say it runs (0 … the last tick). */
function invert(reading: Reading, p: { x: number; y: number }): { perUser: number; output: number } {
  const top = (labels: string[]) => Number(labels.at(-1)!.replaceAll(',', ''))
  const width = CURVE.width - CURVE.left - CURVE.right
  const height = CURVE.height - CURVE.top - CURVE.bottom
  return {
    perUser: ((p.x - CURVE.left) / width) * top(reading.x),
    output: ((CURVE.height - CURVE.bottom - p.y) / height) * top(reading.y),
  }
}

/** Per target, side and concurrency, the figures the page was built from. */
type Expected = Map<string, { perUser: number; output: number }>
const key = (target: string, side: string, concurrency: number) => `${target} ${side} c${concurrency}`

function fromRun(run: ResultsFile): Expected {
  const expected: Expected = new Map()
  for (const c of run.cells) {
    expected.set(key(c.target, 'current', c.workload.concurrency), {
      perUser: c.metrics!.per_user_tps,
      output: c.metrics!.output_tps,
    })
    const base = c.verdict.reference!['output-throughput']!.value
    expected.set(key(c.target, 'baseline', c.workload.concurrency), {
      perUser: base / c.workload.concurrency,
      output: base,
    })
  }
  return expected
}

function checkPoints(reading: Reading, expected: Expected): void {
  expect(reading.x[0]).toBe('0')
  expect(reading.y[0]).toBe('0')
  const sides = reading.paths.map((p) => `${p.target}:${p.side}`).sort()
  expect(sides).toEqual(TARGETS.flatMap((t) => [`${t}:baseline`, `${t}:current`]).sort())
  expect(reading.paths.every((p) => p.length > 0)).toBe(true)
  expect(reading.points).toHaveLength(TARGETS.length * 2 * CONCURRENCIES.length)
  // Half a view-box unit of rounding and rendering, in figures: the axis's length over its width in units.
  const top = (labels: string[]) => Number(labels.at(-1)!.replaceAll(',', ''))
  const dx = top(reading.x) / (CURVE.width - CURVE.left - CURVE.right) / 2 + 1e-9
  const dy = top(reading.y) / (CURVE.height - CURVE.top - CURVE.bottom) / 2 + 1e-9
  for (const p of reading.points) {
    expect(Math.abs(p.x - p.cx), `${p.target} ${p.side} c${p.concurrency} drawn at x ${p.x}`).toBeLessThan(0.5)
    expect(Math.abs(p.y - p.cy), `${p.target} ${p.side} c${p.concurrency} drawn at y ${p.y}`).toBeLessThan(0.5)
    expect(p.onPath, `${p.target} ${p.side} c${p.concurrency} on its path`).toBe(true)
    const want = expected.get(key(p.target, p.side, p.concurrency))!
    const got = invert(reading, { x: p.cx, y: p.cy })
    expect(
      Math.abs(got.perUser - want.perUser),
      `${key(p.target, p.side, p.concurrency)} per-user`,
    ).toBeLessThanOrEqual(dx)
    expect(Math.abs(got.output - want.output), `${key(p.target, p.side, p.concurrency)} output`).toBeLessThanOrEqual(dy)
  }
}

const OVERFLOW = `(function () {
  var doc = document.documentElement;
  var figures = Array.from(document.querySelectorAll('figure.sweep')).map(function (f) {
    var svg = f.querySelector('svg.curve').getBoundingClientRect(), box = f.getBoundingClientRect();
    return { svgLeft: svg.left, svgRight: svg.right, left: box.left, right: box.right, scroll: f.scrollWidth - f.clientWidth, width: svg.width };
  });
  return { page: doc.scrollWidth - doc.clientWidth, viewport: window.innerWidth, figures: figures };
})()`

interface Overflow {
  page: number
  viewport: number
  figures: { svgLeft: number; svgRight: number; left: number; right: number; scroll: number; width: number }[]
}

async function checkOverflow(page: Page): Promise<void> {
  for (const width of [1280, 390]) {
    await page.resize(width)
    const o = await page.evaluate<Overflow>(OVERFLOW)
    expect(o.page, `page wider than the ${width}px viewport`).toBeLessThanOrEqual(0)
    expect(o.figures.length).toBeGreaterThan(0)
    for (const f of o.figures) {
      expect(f.scroll, `curve figure scrolls sideways at ${width}px`).toBeLessThanOrEqual(0)
      expect(f.svgLeft).toBeGreaterThanOrEqual(f.left)
      expect(f.svgRight).toBeLessThanOrEqual(f.right)
      expect(f.right).toBeLessThanOrEqual(o.viewport)
      expect(f.width).toBeGreaterThan(width > 1000 ? 400 : 250)
    }
  }
  await page.resize(1280)
}

async function checkText(page: Page): Promise<void> {
  const seen = await page.evaluate<{ imgs: number; legend: string[]; scripts: number }>(
    `({ imgs: document.querySelectorAll('img').length, scripts: document.querySelectorAll('svg script').length,
        legend: Array.from(document.querySelectorAll('figure.sweep .legend li')).map(function (li) { return li.textContent }) })`,
  )
  expect(seen.imgs).toBe(0)
  expect(seen.scripts).toBe(0)
  expect(seen.legend.some((l) => l.includes(SWEEP_MODEL))).toBe(true)
}

describe("the run's leaderboard page in headless Chromium", () => {
  const run = sweepRun()
  let page: Page
  beforeAll(async () => {
    page = await open('leaderboard', renderLeaderboard(run), 1280)
  }, 30_000)

  it('draws one path per target and side, and each point where its figures are', async () => {
    checkPoints(await page.evaluate<Reading>(READ), fromRun(run))
  })

  it('fits the page and its figure at a desktop and at a phone width', async () => {
    await checkOverflow(page)
    await page.shot('leaderboard')
  })

  it('keeps the hostile model name as text and loads nothing but the document', async () => {
    await checkText(page)
    expect(page.requests).toEqual([page.url])
  })
})

describe('the dashboard in headless Chromium', () => {
  const input = sweepDashboard([1.2, 1, 0.9])
  let page: Page
  beforeAll(async () => {
    page = await open('dashboard', renderDashboard(input), 1280)
  }, 30_000)

  it('draws the latest run and the one before it, each point where its figures are', async () => {
    const expected: Expected = new Map()
    for (const c of input.baseline.cells) {
      const c4 = c.workload.concurrency
      expected.set(key(c.target, 'current', c4), { perUser: c.metrics!.per_user_tps, output: c.metrics!.output_tps })
      const before = input.history[input.history.length - 2].cells[c.id].output_tps.steady
      expected.set(key(c.target, 'baseline', c4), { perUser: before / c4, output: before })
    }
    checkPoints(await page.evaluate<Reading>(READ), expected)
  })

  it('fits the page and its figure at a desktop and at a phone width', async () => {
    await checkOverflow(page)
    await page.shot('dashboard')
  })

  it('keeps the hostile model name as text and loads nothing but the document', async () => {
    await checkText(page)
    expect(page.requests).toEqual([page.url])
  })
})
