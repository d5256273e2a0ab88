import { describe, expect, it } from 'vitest'
import { clip, codeBlock, escapeHtml, escapeText, safeUrl, stripControl, tail } from '../../src/report/escape.js'
import { COMMENT_LIMIT, SUMMARY_LIMIT, renderReport } from '../../src/report/index.js'
import { CTX, failed, judged, measured } from '../helpers/builders.js'

/** Splits markdown into fenced code blocks and the rest, by CommonMark's backtick-fence rules. */
function fences(md: string): { outside: string; blocks: string[] } {
  const outside: string[] = []
  const blocks: string[] = []
  let open: { length: number; lines: string[] } | undefined
  for (const line of md.split('\n')) {
    if (!open) {
      const start = /^(`{3,})[^`]*$/.exec(line)
      if (start) open = { length: start[1].length, lines: [] }
      else outside.push(line)
    } else if (new RegExp(`^\`{${open.length},}\\s*$`).test(line)) {
      blocks.push(open.lines.join('\n'))
      open = undefined
    } else open.lines.push(line)
  }
  expect(open, 'every fence is closed').toBeUndefined()
  return { outside: outside.join('\n'), blocks }
}

describe('escapeText (table cells and list items)', () => {
  it.each([
    ['a|b', 'a\\|b'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['x & y', 'x &amp; y'],
    ['`code` *em* _u_ [link](u) ~s~ \\', '\\`code\\` \\*em\\* \\_u\\_ \\[link\\](u) \\~s\\~ \\\\'],
    ['two\nlines\r\nthree', 'two lines three'],
    ['\u001b[31mred\u001b[0m\u0007', 'red'],
    ['qwen3.8-27b-fp8', 'qwen3.8-27b-fp8'],
    ['ping @octocat about #12', 'ping @&#8203;octocat about #&#8203;12'],
    ['model@rev and issue#x', 'model@rev and issue#x'],
    ['a sweep point chat-128@c4', 'a sweep point chat-128@c4'],
    ['x-@octocat and (@octocat)', 'x-@&#8203;octocat and (@&#8203;octocat)'],
  ])('%j → %j', (input, output) => {
    expect(escapeText(input)).toBe(output)
  })
})

describe('helpers', () => {
  it.each([
    ['plain', '```\nplain\n```'],
    ['has ``` inside', '````\nhas ``` inside\n````'],
    ['has ```` and `', '`````\nhas ```` and `\n`````'],
  ])('codeBlock(%j) uses a longer fence than any backtick run', (input, output) => {
    expect(codeBlock(input)).toBe(output)
  })

  it('escapes HTML for raw HTML contexts and strips control characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
    expect(stripControl('a\r\nb\u0000c\u001b[2Kd')).toBe('a\nbcd')
  })

  it('clips and tails without losing the ends that matter', () => {
    expect(clip('abcdef', 4)).toBe('abc…')
    expect(clip('abc', 4)).toBe('abc')
    expect(tail('one\ntwo\nthree', 9)).toBe('…\nthree')
  })

  it.each([
    ['https://github.com/o/r/actions/runs/1', true],
    ['http://127.0.0.1:8080/x?y=1', true],
    ['javascript:alert(1)', false],
    ['https://x.test/a) [b](c', false],
    ['https://x.test/"onmouseover', false],
  ])('safeUrl(%j) keeps it: %s', (url, kept) => {
    expect(safeUrl(url)).toBe(kept ? url : undefined)
  })
})

describe('everything from engines is escaped in the report', () => {
  const hostile = measured(
    'evil|<i>t</i>/chat',
    { decode: 50, ttft: 400 },
    {
      model: 'org/model|<script>alert(1)</script>',
      engine: 'vllm',
      quant: 'q|4<b>',
      flags: ['short|output <img src=x onerror=alert(1)>'],
      info: {
        version: '0.11`rc`|<b>',
        launch: 'serve --chat-template "```"\n--port 8000',
        server: { note: '</details><script>x</script>' },
      },
      specDecode: { acceptanceRate: 0.5, source: 'metrics|<b>' },
    },
  )
  const logTail = 'loading\n```\n<script>alert(1)</script>\nRuntimeError: boom | pipe\n````\nend'
  const broken = failed('crash/chat', 'exit 1 <img src=x onerror=alert(1)>\n| not | a | row |', logTail)
  const results = judged([hostile, broken], ['flagged', 'error'])

  it.each([
    ['comment', COMMENT_LIMIT],
    ['summary', SUMMARY_LIMIT],
  ])('%s: no live tag or broken table outside code blocks; code blocks hold the text verbatim', (_name, limit) => {
    const md = renderReport(results, CTX, limit)
    const { outside, blocks } = fences(md)
    const tags = outside.match(/<\/?[a-z][^>]*>/gi) ?? []
    expect(new Set(tags.map((t) => t.replace(/>.*$/, '>')))).toEqual(
      new Set(['<br>', '<details>', '</details>', '<summary>', '</summary>']),
    )
    expect(outside).toContain('org/model\\|&lt;script&gt;alert(1)&lt;/script&gt;')
    // Every row of every table has as many cells as its header: no pipe from engine text split a cell.
    const tables = outside
      .split(/\n(?!\|)/)
      .map((chunk) => chunk.split('\n').filter((l) => l.startsWith('|')))
      .filter((t) => t.length)
    expect(tables.length).toBeGreaterThanOrEqual(3)
    for (const t of tables) for (const row of t) expect(row.split(/(?<!\\)\|/).length, row).toBe(t[0].split('|').length)
    const table = outside.split('\n').filter((l) => /^\| (🟡|💥) /.test(l))
    expect(table).toHaveLength(2)
    for (const row of table) expect(row.split(/(?<!\\)\|/)).toHaveLength(12) // ten columns (with Quality) between the outer pipes
    expect(blocks).toContain('serve --chat-template "```"\n--port 8000')
    expect(blocks).toContain('chat: exit 1 <img src=x onerror=alert(1)>\n| not | a | row |')
    expect(blocks).toContain(logTail)
  })
})

describe('engine text that would read or link differently', () => {
  it.each<[string, string, RegExp]>([
    ['a right-to-left override', 'model\u202egnp.exe', /^modelgnp\.exe$/],
    ['an isolate and a mark', 'a\u2066b\u2069c\u200fd', /^abcd$/],
    ['a bare https URL', 'see https://evil.example/x', /^see https:&#8203;\/\/evil\.example\/x$/],
    ['a www host', 'www.evil.example', /^www&#8203;\.evil\.example$/],
    ['a GH- issue reference', 'fixes GH-12', /^fixes GH&#8203;-12$/],
  ])('%s', (_name, text, expected) => {
    expect(escapeText(text)).toMatch(expected)
  })

  it('strips bidirectional controls from HTML text too', () => {
    expect(escapeHtml('a\u202eb')).toBe('ab')
  })
})
