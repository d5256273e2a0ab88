import { describe, expect, it } from 'vitest'
import type { MetricsBlock } from '../../src/core/measurements.js'
import {
  COLUMNS,
  FIGURES_TOGGLE_ID,
  renderLeaderboard,
  sortRows,
  sortScript,
  TABLE_ID,
  type SortRow,
  type SortValue,
} from '../../src/report/pages/leaderboard.js'
import { formatDelta, formatNumber } from '../../src/core/format.js'
import type { CellResult, MetricVerdict } from '../../src/core/results.js'
import { failed, flatCell, matrix, resultsFile } from '../helpers/builders.js'

const RUN_URL = 'https://github.com/acme/serving/actions/runs/42'
const XSS = '<script>alert(1)</script>'

function mv(status: MetricVerdict['status'], metric: MetricVerdict['metric'], delta: number): MetricVerdict {
  return {
    status,
    metric,
    stat: 'mean',
    current: 100 * (1 + delta),
    baseline: 100,
    delta,
    reason: `${formatDelta(delta)}`,
  }
}

// Deltas 0.07, 0.25 and 0.5: numeric order differs from the order of their texts, even under numeric collation.
const improved = (delta: number): CellResult['verdict'] => ({
  status: 'improvement',
  metrics: { decode: mv('improvement', 'decode', delta) },
})

// Plan order deliberately interleaves models and runtimes; values chosen so lexical and numeric order differ (95 vs 1200).
const v27 = flatCell('q27-fp8-vllm/chat-1k', { decode: 45, ttft: 1200, output: 380 }, 3, 1, {
  model: 'Qwen3.6-27B-FP8',
  engine: 'vllm',
  info: { version: '0.11.0' },
  verdict: {
    status: 'regression',
    metrics: { decode: mv('regression', 'decode', -0.12), ttft: mv('pass', 'ttft', 0.031) },
  },
})
const n9 = flatCell('q9-llamacpp/chat-4k', { decode: 80, ttft: 95, output: 640 }, 3, 1, {
  model: 'Qwen3.5-9B',
  engine: 'llamacpp',
  quant: null,
  workload: { inputTokens: 4096, outputTokens: 256, concurrency: 1, requests: 4, rate: null },
})
const s27 = flatCell('q27-fp8-sglang/chat-1k', { decode: 48, ttft: 1100, output: 410 }, 3, 1, {
  model: 'Qwen3.6-27B-FP8',
  engine: 'sglang',
  info: { version: '0.5.2' },
  verdict: improved(0.07),
})
const xss = flatCell('xss-vllm/chat-1k', { decode: 30, ttft: 700, output: 250 }, 3, 1, {
  model: XSS,
  engine: 'vllm',
  info: { version: '0.11.0"><b>' },
  verdict: improved(0.5),
})
const amp = flatCell('amp-vllm/chat-1k', { decode: 60, ttft: 300, output: 500 }, 3, 1, {
  model: 'a|b&c',
  engine: 'vllm',
  verdict: improved(0.25),
})
const boom = failed('boom-vllm/chat-1k', 'CUDA out of memory <img src=x onerror=alert(1)>')
const gone: CellResult = {
  ...flatCell('gone-vllm/chat-1k', {}),
  metrics: null,
  rounds: [],
  verdict: { status: 'missing', metrics: {}, note: 'in the baseline, not run' },
}
const MEASURED = [v27, n9, s27, xss, amp]

const results = resultsFile([v27, n9, boom, s27, xss, gone, amp], 'f'.repeat(40))
const html = renderLeaderboard(results, { runUrl: RUN_URL, sha: 'e'.repeat(40) })

const decode = (s: string) =>
  s.replace(
    /&lt;|&gt;|&quot;|&#39;|&amp;/g,
    (e) => ({ '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' })[e]!,
  )
const attrs = (s: string) => Object.fromEntries([...s.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], decode(m[2])]))

interface ParsedRow {
  id: string
  values: (string | undefined)[]
  texts: string[]
  classes: string[]
}

/** Rows of the table as a browser would see them: attribute values unescaped, cell text without tags. */
function parseRows(page: string): ParsedRow[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]
  return [...body.matchAll(/<tr([^>]*)>([\s\S]*?)<\/tr>/g)].map((tr) => {
    const tds = [...tr[2].matchAll(/<td([^>]*)>([\s\S]*?)<\/td>/g)].map((td) => ({
      a: attrs(td[1]),
      text: decode(td[2].replace(/<[^>]*>/g, '')),
    }))
    return {
      id: attrs(tr[1])['data-id'],
      values: tds.map((t) => t.a['data-value']),
      texts: tds.map((t) => t.text),
      classes: tds.map((t) => t.a.class ?? ''),
    }
  })
}

const col = (label: string) => {
  const i = COLUMNS.findIndex((c) => c.label === label)
  expect(i, label).toBeGreaterThanOrEqual(0)
  return i
}
const rows = parseRows(html)
const row = (c: CellResult) => rows.find((r) => r.id === c.id)!

describe('renderLeaderboard: rows', () => {
  it('has one row per measured cell, grouped by model (numeric collation) then runtime', () => {
    expect(rows.map((r) => r.id)).toEqual([xss.id, amp.id, n9.id, s27.id, v27.id])
    // No cell measured output quality: those columns are left out.
    const shown = COLUMNS.filter((c) => !c.whenPresent)
    expect(rows.every((r) => r.values.length === shown.length)).toBe(true)
    const headers = [...html.matchAll(/<th [^>]*><button type="button">([^<]*)<\/button><\/th>/g)].map((m) =>
      decode(m[1]),
    )
    expect(headers).toEqual(shown.map((c) => c.label))
    // What a reader came for first: the cell, its verdict and the verdict's Δ; then the raw figures.
    expect(headers).toEqual([
      'Model',
      'Scenario',
      'Verdict',
      'Δ decode',
      'Δ TTFT',
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
  })

  it('hides the raw figures behind one checkbox, no script: the first five columns always show', () => {
    const heads = [...html.matchAll(/<th scope="col"([^>]*)>/g)].map((m) => attrs(m[1]).class ?? '')
    expect(heads.map((c) => c.split(' ').includes('extra'))).toEqual(heads.map((_, i) => i >= 5))
    expect(row(v27).classes.map((c) => c.split(' ').includes('extra'))).toEqual(heads.map((_, i) => i >= 5))
    expect(html).toContain(`<input type="checkbox" id="${FIGURES_TOGGLE_ID}" class="toggle">`)
    expect(html).toContain('show all figures (10 more columns)')
    expect(html).toContain(`.extra { display: none; }`)
    expect(html).toContain(`#${FIGURES_TOGGLE_ID}:checked ~ .table-wrap .extra { display: table-cell; }`)
  })

  it('shows model with its runtime (engine + version) and quant beneath, and the workload', () => {
    expect(row(v27).texts.slice(0, 2)).toEqual(['Qwen3.6-27B-FP8vllm 0.11.0 · fp8', 'chat-1k1024 → 128 @ 8'])
    expect(row(n9).texts.slice(0, 2)).toEqual(['Qwen3.5-9Bllamacpp', 'chat-4k4096 → 256 @ 1'])
    expect([row(v27).texts[col('Runtime')], row(v27).texts[col('Quant')]]).toEqual(['vllm 0.11.0', 'fp8'])
    expect([row(n9).values[col('Quant')], row(n9).texts[col('Quant')]]).toEqual(['', '—'])
  })

  const picks: [string, (m: MetricsBlock) => number][] = [
    ['Total tok/s', (m) => m.total_tps],
    ['Output tok/s', (m) => m.output_tps],
    ['Per-user tok/s', (m) => m.per_user_tps],
    ['TTFT p99 ms', (m) => m.ttft_ms.p99],
    ['TPOT avg ms', (m) => m.tpot_ms.mean],
    ['TPOT p99 ms', (m) => m.tpot_ms.p99],
  ]
  it.each(picks)('%s: the raw metric in data-value, formatted in the text', (label, pick) => {
    for (const c of MEASURED) {
      const r = row(c)
      expect(Number(r.values[col(label)])).toBe(pick(c.metrics!))
      expect(r.texts[col(label)]).toBe(formatNumber(pick(c.metrics!)))
      expect(r.classes[col(label)]).toContain('num')
    }
  })

  it('Decode tok/s and TTFT avg ms: the verdict’s head where it compared the mean, else the cell’s own mean', () => {
    // v27's verdict decided decode on 88.0 tok/s and TTFT on 103 ms (its first measurement read 45 and 1,200).
    expect([row(v27).values[col('Decode tok/s')], row(v27).texts[col('Decode tok/s')]]).toEqual(['88', '88.0'])
    expect([row(v27).values[col('TTFT avg ms')], row(v27).texts[col('TTFT avg ms')]]).toEqual(['103.1', '103'])
    // n9 has no verdict on either: its own means.
    expect(Number(row(n9).values[col('Decode tok/s')])).toBe(n9.metrics!.decode_tps.mean)
    expect(Number(row(n9).values[col('TTFT avg ms')])).toBe(n9.metrics!.ttft_ms.mean)
    expect(row(s27).texts[col('TTFT avg ms')]).toBe(formatNumber(s27.metrics!.ttft_ms.mean))
  })

  it('shows the verdict and the Δ% of decode and TTFT from the verdict, raw deltas in data-value', () => {
    const r = row(v27)
    expect(r.texts[col('Verdict')]).toBe('🔴 regression')
    expect(r.classes[col('Verdict')]).toContain('regression')
    // The verdict's Δ, its base → head beneath it.
    expect([r.values[col('Δ decode')], r.texts[col('Δ decode')]]).toEqual(['-0.12', '−12.0%100 → 88.0 tok/s'])
    expect(r.classes[col('Δ decode')]).toContain('regression')
    expect([r.values[col('Δ TTFT')], r.texts[col('Δ TTFT')]]).toEqual(['0.031', '+3.1%100 → 103 ms'])
    // No TTFT verdict: no value (sorts last) and a dash.
    expect([row(s27).values[col('Δ decode')], row(s27).values[col('Δ TTFT')], row(s27).texts[col('Δ TTFT')]]).toEqual([
      '0.07',
      '',
      '—',
    ])
    expect(row(n9).texts[col('Verdict')]).toBe('🆕 new')
  })

  it('lists failed cells with their escaped error below the table, and unmeasured cells apart', () => {
    expect(rows.map((r) => r.id)).not.toContain(boom.id)
    expect(rows.map((r) => r.id)).not.toContain(gone.id)
    const errors = /<section id="errors">([\s\S]*?)<\/section>/.exec(html)![1]
    expect(html.indexOf('<section id="errors">')).toBeGreaterThan(html.indexOf('</table>'))
    expect(errors).toContain('1 cell failed')
    expect(errors).toContain(`<strong>${boom.id}</strong>`)
    expect(errors).toContain('<pre>CUDA out of memory &lt;img src=x onerror=alert(1)&gt;</pre>')
    expect(/<section id="unmeasured">[\s\S]*gone-vllm\/chat-1k[\s\S]*in the baseline, not run/.test(html)).toBe(true)
  })

  it('a judged matrix: every non-error cell is a row, every error is listed', () => {
    const { results: judged, kinds } = matrix(
      3,
      3,
      (i) => (['pass', 'regression', 'error', 'flagged', 'improvement', 'new'] as const)[i % 6],
    )
    const page = renderLeaderboard(judged, {})
    const ids = parseRows(page).map((r) => r.id)
    judged.cells.forEach((c, i) =>
      kinds[i] === 'error' ? expect(page).toContain(`<strong>${c.id}</strong>`) : expect(ids).toContain(c.id),
    )
    expect(ids).toHaveLength(kinds.filter((k) => k !== 'error').length)
  })
})

describe('renderLeaderboard: header, escaping, self-containment', () => {
  it('names the sha, hardware, date, tool version and links the run', () => {
    const meta = /<p class="meta">(.*)<\/p>/.exec(html)![1]
    expect(meta).toContain(`<code title="${'e'.repeat(40)}">${'e'.repeat(12)}</code>`)
    expect(meta).toContain('hardware <code>nvidia-gb10</code>')
    expect(meta).toContain('2026-01-01 00:00 UTC')
    expect(meta).toContain('llm-bench-gate 0.1.0')
    expect(meta).toContain(`<a href="${RUN_URL}">workflow run</a>`)
    expect(html).toContain('<title>LLM serving leaderboard · nvidia-gb10</title>')
  })

  it('escapes model names, versions, errors and the title everywhere', () => {
    expect(html.match(/<script/g)).toHaveLength(1)
    expect(html).not.toContain('alert(1)</script>')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).toContain('a|b&amp;c')
    expect(html).not.toContain('a|b&c')
    expect(html).not.toMatch(/<img|<b>/)
    // Attribute values round-trip to the raw text.
    expect([row(xss).values[0], row(amp).values[0], row(xss).values[col('Runtime')]]).toEqual([
      XSS,
      'a|b&c',
      'vllm 0.11.0"><b>',
    ])
    const titled = renderLeaderboard(results, { title: '<Spark & co>' })
    expect(titled).toContain('<title>&lt;Spark &amp; co&gt;</title>')
    expect(titled).toContain('<h1>&lt;Spark &amp; co&gt;</h1>')
  })

  it('loads nothing: the only URL is the given run link', () => {
    expect(html.match(/https?:\/\/[^\s"'<>)]*/g)).toEqual([RUN_URL])
    // No tag fetches anything (the one href is the run link), no stylesheet import, no protocol-relative reference.
    expect([...html.matchAll(/<(\w+)[^>]*\s(?:src|srcset|href|action|poster)=/g)].map((m) => m[1])).toEqual(['a'])
    expect(html).not.toMatch(/<link|@import|url\(|["'(]\/\//)
    const bare = renderLeaderboard(
      { ...results, run: { ...results.run, runUrl: '' } },
      { runUrl: 'javascript:alert(1)' },
    )
    expect(bare).not.toMatch(/https?:|<a |javascript:/)
  })
})

describe('sortRows', () => {
  const r = (index: number, ...values: SortValue[]): SortRow => ({ index, values })
  const ids = (rs: SortRow[]) => rs.map((x) => x.index)
  it.each<[string, SortRow[], number, 'ascending' | 'descending', number[]]>([
    ['numbers numerically, not as text', [r(0, 9.5), r(1, 120), r(2, 10)], 0, 'ascending', [0, 2, 1]],
    ['decimals as numbers (0.07 < 0.25 < 0.5)', [r(0, 0.5), r(1, 0.07), r(2, 0.25)], 0, 'ascending', [1, 2, 0]],
    ['numbers descending', [r(0, 9.5), r(1, 120), r(2, 10)], 0, 'descending', [1, 2, 0]],
    ['negative deltas', [r(0, 0.03), r(1, -0.12), r(2, 0)], 0, 'ascending', [1, 2, 0]],
    ['missing values last ascending', [r(0, null), r(1, 2), r(2, 1)], 0, 'ascending', [2, 1, 0]],
    ['missing values last descending', [r(0, null), r(1, 2), r(2, 1)], 0, 'descending', [1, 2, 0]],
    ['ties keep the default order either way', [r(0, 5), r(1, 5), r(2, 1)], 0, 'descending', [0, 1, 2]],
    [
      'text with numeric collation',
      [r(0, 'Qwen3.5-27B'), r(1, 'Qwen3.5-9B'), r(2, 'gemma')],
      0,
      'ascending',
      [2, 1, 0],
    ],
    ['text case-insensitive, descending', [r(0, 'b'), r(1, 'A'), r(2, 'c')], 0, 'descending', [2, 0, 1]],
    ['the chosen column', [r(0, 'z', 1), r(1, 'a', 3), r(2, 'm', 2)], 1, 'ascending', [0, 2, 1]],
  ])('%s', (_name, input, column, direction, expected) => {
    const copy = input.slice()
    expect(ids(sortRows(input, column, direction))).toEqual(expected)
    expect(input).toEqual(copy)
  })

  it('is embedded verbatim in the page script', () => {
    expect(sortScript(TABLE_ID)).toContain(sortRows.toString())
    expect(html).toContain(sortRows.toString())
  })
})

/** Just enough DOM for the page script: the table's header cells, buttons, rows and `appendChild`. */
function fakeDocument(page: string) {
  const heads = [...page.matchAll(/<th\s([^>]*)>/g)].map((m) => {
    const a: Record<string, string> = attrs(m[1])
    const button = {
      click: () => {},
      addEventListener: (type: string, fn: () => void) => type === 'click' && (button.click = fn),
    }
    return {
      a,
      button,
      getAttribute: (n: string) => a[n] ?? null,
      setAttribute: (n: string, v: string) => (a[n] = v),
      removeAttribute: (n: string) => delete a[n],
      querySelector: (s: string) => (s === 'button' ? button : null),
    }
  })
  const trs = parseRows(page).map((p) => ({
    id: p.id,
    cells: p.values.map((v) => ({ getAttribute: (n: string) => (n === 'data-value' ? (v ?? null) : null) })),
  }))
  const body = {
    rows: trs.slice(),
    appendChild(el: (typeof trs)[number]) {
      body.rows.splice(body.rows.indexOf(el), 1)
      body.rows.push(el)
    },
  }
  const table = { tBodies: [body], tHead: { rows: [{ cells: heads }] } }
  return {
    document: { getElementById: (id: string) => (id === TABLE_ID ? table : null) },
    heads,
    order: () => body.rows.map((t) => t.id),
  }
}

describe('the page script against a minimal DOM', () => {
  const script = /<script>\n([\s\S]*?)\n<\/script>/.exec(html)![1]
  const byMetric = (pick: (c: CellResult) => number | undefined, sign: 1 | -1) =>
    MEASURED.slice()
      .sort((a, b) => sign * (pick(a)! - pick(b)!))
      .map((c) => c.id)

  it('sorts numerically on click, toggles direction and moves aria-sort', () => {
    const dom = fakeDocument(html)
    new Function('document', script)(dom.document)
    const ttft = dom.heads[col('TTFT avg ms')]
    const shownTtft = (c: CellResult) => c.verdict.metrics.ttft?.current ?? c.metrics!.ttft_ms.mean
    ttft.button.click()
    expect(dom.order()).toEqual(byMetric(shownTtft, 1))
    expect(dom.order()[0]).toBe(n9.id) // 95 ms before 300 ms and 1200 ms: numeric, not lexical
    expect(ttft.getAttribute('aria-sort')).toBe('ascending')
    ttft.button.click()
    expect(dom.order()).toEqual(byMetric(shownTtft, -1))
    expect(ttft.getAttribute('aria-sort')).toBe('descending')
    const output = dom.heads[col('Output tok/s')]
    output.button.click()
    expect(dom.order()).toEqual(byMetric((c) => c.metrics!.output_tps, 1))
    expect([output.getAttribute('aria-sort'), ttft.getAttribute('aria-sort')]).toEqual(['ascending', null])
    expect(dom.heads.filter((h) => h.getAttribute('aria-sort') !== null)).toHaveLength(1)
  })

  it('sorts text columns, deltas as numbers, and keeps cells without a value last', () => {
    const dom = fakeDocument(html)
    new Function('document', script)(dom.document)
    dom.heads[col('Runtime')].button.click()
    expect(dom.order()).toEqual([n9.id, s27.id, amp.id, v27.id, xss.id])
    dom.heads[col('Δ decode')].button.click()
    expect(dom.order()).toEqual([v27.id, s27.id, amp.id, xss.id, n9.id])
    dom.heads[col('Δ decode')].button.click()
    expect(dom.order()).toEqual([xss.id, amp.id, s27.id, v27.id, n9.id])
  })
})
