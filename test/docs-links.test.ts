// Every relative link in README.md, CONTRIBUTING.md and docs/*.md points at a file that exists, and every #anchor at a
// heading of the file it names, slugged the way GitHub renders heading ids.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const FILES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
]

interface Line {
  line: number
  text: string
}

/** The lines outside fenced code blocks (``` or ~~~, as CommonMark opens and closes them). */
function prose(markdown: string): Line[] {
  const out: Line[] = []
  let fence: string | undefined
  markdown.split('\n').forEach((text, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(text)
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length && text.trim() === open[1])
        fence = undefined
    } else if (open) fence = open[1]
    else out.push({ line: i + 1, text })
  })
  return out
}

/**
 * A heading's id as GitHub makes it (github-slugger, https://github.com/Flet/github-slugger): the rendered
 * text lower-cased, every character that is not a letter, mark, number, connector (`_`), `-` or space
 * dropped, spaces turned into `-`; a repeated slug gets `-1`, `-2`, … in order.
 */
function headingSlugs(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const slugs = new Set<string>()
  for (const { text } of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)
    if (!heading) continue
    const rendered = heading[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '')
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    slugs.add(n ? `${base}-${n}` : base)
  }
  return slugs
}

interface Link {
  file: string
  line: number
  target: string
}

/** Inline links and images outside code (fenced blocks and `code spans`). */
function links(file: string): Link[] {
  const found: Link[] = []
  for (const { line, text } of prose(readFileSync(join(ROOT, file), 'utf8'))) {
    const bare = text.replace(/`+[^`]*`+/g, '')
    for (const m of bare.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      found.push({ file, line, target: m[1] })
  }
  return found
}

const ALL = FILES.flatMap(links)
const RELATIVE = ALL.filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target) && !l.target.startsWith('//'))

describe('links in README.md and docs/', () => {
  it('finds the links it checks', () => {
    // A parser that found nothing would prove nothing.
    expect(FILES.length).toBeGreaterThanOrEqual(10)
    expect(RELATIVE.length).toBeGreaterThanOrEqual(40)
    expect(RELATIVE.filter((l) => l.target.includes('#')).length).toBeGreaterThanOrEqual(15)
  })

  it('slugs headings as GitHub does', () => {
    const slugs = headingSlugs(
      '# A `b` c\n## 3. The PR workflow\n### `engine: external`\n## Two DGX Sparks, vLLM with Ray, TP=2\n## Gate\n## Gate\n```\n# not a heading\n```\n',
    )
    expect([...slugs]).toEqual([
      'a-b-c',
      '3-the-pr-workflow',
      'engine-external',
      'two-dgx-sparks-vllm-with-ray-tp2',
      'gate',
      'gate-1',
    ])
  })

  it.each(RELATIVE.map((l) => [`${l.file}:${l.line}`, l.target, l] as const))(
    '%s → %s resolves',
    (_at, _target, link) => {
      const [path, anchor] = link.target.split('#', 2) as [string, string | undefined]
      const file = path ? normalize(join(dirname(link.file), decodeURI(path))) : link.file
      expect(existsSync(join(ROOT, file)), `${file} exists`).toBe(true)
      if (anchor === undefined) return
      expect(file.endsWith('.md'), `an anchor needs a markdown file, not ${file}`).toBe(true)
      expect(
        [...headingSlugs(readFileSync(join(ROOT, file), 'utf8'))],
        `${file} has a heading for #${anchor}`,
      ).toContain(anchor)
    },
  )
})
