/**
 * The PR comment at GitHub's width: the comment body rendered as GitHub renders markdown (GFM, with the marked
 * renderer) and styled with GitHub's own markdown stylesheet (github-markdown-css), in a real headless Chromium
 * 800 CSS pixels wide, as a conversation comment is. For the demo's run (the bundled CLI with `npm run demo`'s
 * arguments) and for a 50-cell run with 2 regressions: the compact table does not scroll sideways, the page does
 * not overflow, and the headline with the table of what needs a look ends within the first 700 px. The demo's
 * outputs name no absolute path. Screenshots go to LLM_BENCH_SCREENSHOT_DIR (docs/ keeps the shipped ones).
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { marked } from 'marked'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { COMMENT_LIMIT, renderReport } from '../../src/report/index.js'
import { CHANGED_ROWS, needsALook } from '../../src/report/markdown/changed-table.js'
import { CTX, matrix } from '../helpers/builders.js'
import { launchBrowser, openPage, type Browser, type Page } from './cdp.js'
import { chromium } from './prereq.js'
import { demoArgs, runCli } from '../helpers/cli.js'
import { ROOT } from '../helpers/action.js'

const SHOTS = process.env.LLM_BENCH_SCREENSHOT_DIR ?? tmpdir()
/** A conversation comment's column, and how much of it a reviewer sees without scrolling. */
const WIDTH = 800
const FIRST_SCREEN = 700

const STYLESHEET = await readFile(join(ROOT, 'node_modules/github-markdown-css/github-markdown-light.css'), 'utf8')

/** The comment as a page: GitHub's markdown styles, the body's padding of a comment box, nothing else. */
function page(markdown: string): string {
  const body = marked.parse(markdown, { gfm: true, async: false })
  return `<!doctype html><html><head><meta charset="utf-8"><style>${STYLESHEET}
body { margin: 0 } .markdown-body { box-sizing: border-box; width: ${WIDTH}px; padding: 16px }</style></head>
<body><article class="markdown-body">${body}</article></body></html>`
}

interface Layout {
  headlineTop: number
  /** The first table (the compact one): its bottom edge, its rows, and whether it scrolls sideways. */
  tableBottom: number
  tableRows: number
  tableOverflow: number
  pageOverflow: number
  headers: string[]
}

const LAYOUT = `(function () {
  var h = document.querySelector('.markdown-body h3');
  var t = document.querySelector('.markdown-body > table');
  return {
    headlineTop: h.getBoundingClientRect().top,
    tableBottom: t.getBoundingClientRect().bottom,
    tableRows: t.querySelectorAll('tbody tr').length,
    tableOverflow: t.scrollWidth - t.clientWidth,
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    headers: Array.from(t.querySelectorAll('thead th')).map(function (th) { return th.textContent.trim(); }),
  };
})()`

/** Rows of the folded table of every cell. */
const EVERY_CELL_ROWS = `Array.from(document.querySelectorAll('details')).find(function (d) {
  return d.querySelector('summary').textContent.indexOf('Every cell') === 0;
}).querySelectorAll('tbody tr').length`

/** The folded table of every cell, opened as a reader opens it: how far it scrolls sideways, and its headers. */
const EVERY_CELL_OPEN = `(function () {
  var d = Array.from(document.querySelectorAll('details')).find(function (d) {
    return d.querySelector('summary').textContent.indexOf('Every cell') === 0;
  });
  d.open = true;
  var t = d.querySelector('table');
  return {
    overflow: t.scrollWidth - t.clientWidth,
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    headers: Array.from(t.querySelectorAll('thead th')).map(function (th) { return th.textContent.trim(); }),
  };
})()`

let browser: Browser
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lbg-comment-'))
  browser = await launchBrowser(chromium().path)
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

const open = (name: string, markdown: string): Promise<Page> =>
  openPage(browser, { dir, name, html: page(markdown), width: WIDTH, height: 900, shots: SHOTS, prefix: 'comment' })

function expectFits(label: string, layout: Layout, rows: number): void {
  console.log(
    `comment ${label}: ${layout.tableRows} rows, table bottom ${Math.round(layout.tableBottom)} px, overflow ${layout.tableOverflow} px`,
  )
  expect(layout.headers).toEqual([
    'Cell',
    'Decode tok/s',
    'TTFT ms',
    expect.stringMatching(/^(TPOT ms|Output tok\/s)$/),
    'Why',
  ])
  expect(layout.tableRows).toBe(rows)
  expect(layout.tableOverflow).toBeLessThanOrEqual(0)
  expect(layout.pageOverflow).toBeLessThanOrEqual(0)
  expect(layout.headlineTop).toBeGreaterThanOrEqual(0)
  expect(layout.tableBottom).toBeLessThanOrEqual(FIRST_SCREEN)
}

describe('the comment at GitHub width', () => {
  it('a 50-cell run with 2 regressions: the compact table fits, under the headline, in the first screen', async () => {
    const { results } = matrix(10, 5, (i) => (i === 7 || i === 31 ? 'regression' : 'pass'))
    const comment = renderReport(results, { ...CTX, form: 'comment' }, COMMENT_LIMIT)
    const tab = await open('fifty', comment)
    await tab.shot('50-cells')
    expectFits('50 cells', await tab.evaluate<Layout>(LAYOUT), 2)
    expect(comment).toContain('✅ 48 cells within limits')
    expect(await tab.evaluate<number>(EVERY_CELL_ROWS)).toBe(50)
    expect(tab.requests.filter((u) => !u.startsWith('file:'))).toEqual([])
  })

  it('the folded table of every cell fits opened: drafting cells, trends, long names, a regression', async () => {
    const { results } = matrix(10, 5, (i) => (i === 7 || i === 31 ? 'regression' : 'pass'))
    const trends: Record<string, number[]> = {}
    for (const [i, c] of results.cells.entries()) {
      c.target = `${c.target}-nvfp4-mtp3-fault`
      trends[c.id] = [50, 51, 49, 50, 52, 50, 49, 51, 50, 50, 51, 50]
      // A drafting engine's split after decode (accept len · step), as the demo's SGLang and llama.cpp cells have.
      if (i % 2) Object.assign(c.metrics!, { accept_length: 3.41, step_ms: 157 })
    }
    const comment = renderReport(results, { ...CTX, form: 'comment', trends }, COMMENT_LIMIT)
    const tab = await open('every-cell', comment)
    const every = await tab.evaluate<{ overflow: number; pageOverflow: number; headers: string[] }>(EVERY_CELL_OPEN)
    await tab.shot('every-cell-open')
    console.log(`comment every cell: overflow ${every.overflow} px, headers ${every.headers.join(' | ')}`)
    expect(every.headers[0]).toBe('Cell')
    expect(every.overflow).toBeLessThanOrEqual(0)
    expect(every.pageOverflow).toBeLessThanOrEqual(0)
  })

  it('the demo: the compact table fits; report, comment and summary name no absolute path', async () => {
    const out = join(dir, 'demo-results')
    const run = await runCli(demoArgs(out), { cwd: ROOT, timeoutMs: 150_000 })
    expect(run.code, run.stderr).toBe(0)
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as ResultsFile
    const comment = await readFile(join(out, 'comment.md'), 'utf8')
    const report = await readFile(join(out, 'report.md'), 'utf8')
    for (const text of [comment, report]) {
      for (const absolute of [ROOT, dir, homedir(), process.execPath, dirname(process.execPath)])
        expect(text).not.toContain(absolute)
      expect(text).not.toMatch(/(^|[\s(`'"])\/(home|root|tmp|usr|work)\//m)
    }
    const shown = Math.min(CHANGED_ROWS, results.cells.filter(needsALook).length)
    const tab = await open('demo', comment)
    await tab.shot('demo')
    expectFits('demo', await tab.evaluate<Layout>(LAYOUT), shown)
  }, 150_000)
})
