// The YAML in README.md and docs/*.md is what users copy: every block parses, every matrix file in it
// validates with the real engine adapters, and every step that uses the action passes only inputs
// action.yml declares and reads only outputs it declares. The README's first run is checked as written:
// its matrix file validates as a whole file, its workflows run on the Spark's labels with that file, and
// its tables of inputs and outputs are action.yml's.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { parse, parseDocument } from 'yaml'
import { buildPlan } from '../src/config/index.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
]
const README = read('README.md')
const ACTION = parse(read('action.yml')) as {
  inputs: Record<string, { default?: string }>
  outputs: Record<string, unknown>
}
const SCRIPTS = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts

interface Block {
  /** `file:line` of the opening fence. */
  at: string
  file: string
  line: number
  text: string
  data: unknown
  /** What the YAML parser could not read. */
  errors: string[]
}

/** The ```yaml (or ```yml) blocks of a markdown file, with the line of their opening fence. */
function yamlBlocks(file: string, markdown: string, firstLine = 1): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*```ya?ml\s*$/.test(lines[i])) continue
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```')
    const text = lines.slice(i + 1, end).join('\n')
    const line = firstLine + i
    const doc = parseDocument(text)
    blocks.push({
      at: `${file}:${line}`,
      file,
      line,
      text,
      data: doc.errors.length ? undefined : doc.toJS(),
      errors: doc.errors.map((e) => e.message),
    })
    i = end
  }
  return blocks
}

/** Every mapping in a parsed document, depth first. */
function mappings(node: unknown): Record<string, unknown>[] {
  if (Array.isArray(node)) return node.flatMap(mappings)
  if (node === null || typeof node !== 'object') return []
  const map = node as Record<string, unknown>
  return [map, ...Object.values(map).flatMap(mappings)]
}

const isMap = (data: unknown): data is Record<string, unknown> =>
  data !== null && typeof data === 'object' && !Array.isArray(data)
const isMatrix = (data: unknown) => isMap(data) && ['targets', 'defaults', 'scenarios'].some((k) => k in data)
const actionSteps = (data: unknown) => mappings(data).filter((m) => String(m.uses ?? '').includes('/llm-bench-gate@'))

const BLOCKS = FILES.flatMap((file) => yamlBlocks(file, read(file)))
const MATRICES = BLOCKS.filter((b) => isMatrix(b.data))
const ACTION_STEPS = BLOCKS.flatMap((b) => actionSteps(b.data).map((step) => ({ ...b, step })))

/** An excerpt gets what a whole file needs around it: the version, one scenario, one target. */
function wholeFile(data: Record<string, unknown>): Record<string, unknown> {
  return {
    version: 1,
    scenarios: { s: { 'input-tokens': 16, 'output-tokens': 4 } },
    targets: { t: { engine: 'vllm', launch: 'vllm serve m --port {port}' } },
    ...data,
  }
}

/** The lines of a `## ` section of the README (up to the next `## `) and the line its heading is on. */
function readmeSection(heading: string): { text: string; line: number } {
  const lines = README.split('\n')
  const start = lines.findIndex((l) => l === `## ${heading}`)
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '))
  if (start < 0) return { text: '', line: 0 }
  return { text: lines.slice(start, end < 0 ? undefined : end).join('\n'), line: start + 1 }
}

/** The rows of the first markdown table after a line that starts with `| head |`, as cells. */
function table(markdown: string, head: string): string[][] {
  const lines = markdown.split('\n')
  // The first cell of the header row, however the formatter pads it.
  const start = lines.findIndex((l) => new RegExp(`^\\|\\s*${head}\\s*\\|`).test(l))
  const rows: string[][] = []
  for (let i = start + 2; start >= 0 && i < lines.length && lines[i].startsWith('|'); i++) {
    rows.push(
      lines[i]
        .replace(/^\||\|$/g, '')
        .split(' | ')
        .map((c) => c.trim()),
    )
  }
  return rows
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, '').replace(/^''$/, '')

describe('YAML in README.md and docs/', () => {
  it('finds the blocks it checks', () => {
    // Guards the checks below: blocks that were no longer found would prove nothing.
    expect(BLOCKS.length).toBeGreaterThanOrEqual(18)
    expect(MATRICES.length).toBeGreaterThanOrEqual(9)
    expect(ACTION_STEPS.length).toBeGreaterThanOrEqual(8)
    expect(MATRICES.filter((b) => isMap(b.data) && b.data.version === 1).length).toBeGreaterThanOrEqual(3)
    expect(new Set(BLOCKS.map((b) => b.file)).size).toBeGreaterThanOrEqual(7)
  })

  it.each(BLOCKS.map((b) => [b.at, b] as const))('the block at %s parses', (_at, block) => {
    expect(block.errors).toEqual([])
  })

  it.each(MATRICES.map((b) => [b.at, b] as const))('the matrix file at %s validates', (at, block) => {
    const data = block.data as Record<string, unknown>
    expect(() =>
      buildPlan(data.version === 1 ? data : wholeFile(data), {
        configPath: at,
        resolvedPath: '/repo/.github/llm-bench.yml',
      }),
    ).not.toThrow()
  })

  it.each(ACTION_STEPS.map((s) => [s.at, s] as const))(
    'the action step at %s passes only declared inputs',
    (_at, { step }) => {
      const inputs = Object.keys((step.with ?? {}) as object)
      expect(inputs.filter((name) => !(name in ACTION.inputs))).toEqual([])
    },
  )

  it.each(FILES)('%s reads only declared outputs of the action', (file) => {
    const used = [...read(file).matchAll(/steps\.[\w-]+\.outputs\.([\w-]+)/g)].map((m) => m[1])
    expect(used.filter((name) => !(name in ACTION.outputs))).toEqual([])
  })
})

describe("README's first run", () => {
  const quick = readmeSection('Quick start')
  const gate = readmeSection('Gate your repository')
  const blocks = yamlBlocks('README.md', gate.text, gate.line)
  const matrix = blocks.filter((b) => isMatrix(b.data))
  const workflows = blocks.filter((b) => isMap(b.data) && 'jobs' in b.data)

  it('starts with two commands: one runs the demo, one runs the tests', () => {
    const sh = /```sh\n([\s\S]*?)\n```/.exec(quick.text)?.[1] ?? ''
    const commands = sh
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean)
    expect(commands).toEqual(['npm ci && npm run demo', 'npm test'])
    expect(SCRIPTS.demo).toContain('run --config fixtures/demo.yml')
    expect(SCRIPTS.test).toContain('vitest run')
  })

  it('shows one matrix file early, and it validates as a whole file as written', () => {
    expect(matrix).toHaveLength(1)
    expect(matrix[0].line).toBeLessThanOrEqual(80)
    expect(MATRICES.find((b) => b.file === 'README.md')?.line, 'the first matrix file of the README is this one').toBe(
      matrix[0].line,
    )
    const plan = buildPlan(matrix[0].data, {
      configPath: '.github/llm-bench.yml',
      resolvedPath: '/repo/.github/llm-bench.yml',
    })
    expect(plan.targets.map((t) => t.engine)).toEqual(['vllm'])
    expect(matrix[0].text.split('\n')[0]).toBe('# .github/llm-bench.yml')
  })

  it('has a PR workflow and a main workflow on the Spark runner, using that file and only declared inputs', () => {
    expect(workflows).toHaveLength(2)
    const [pr, main] = workflows.map(
      (b) =>
        b.data as {
          on: Record<string, { types?: string[]; branches?: string[] }>
          permissions: Record<string, string>
          jobs: Record<string, { 'runs-on': string[] }>
        },
    )
    // `labeled` makes adding `benchmark` (or `benchmark-accept`) start a run.
    expect(pr.on.pull_request.types).toContain('labeled')
    expect(pr.permissions['pull-requests']).toBe('write')
    expect(main.on.push.branches).toEqual(['main'])
    expect(main.permissions.contents).toBe('write')
    for (const wf of [pr, main]) {
      for (const job of Object.values(wf.jobs)) expect(job['runs-on']).toEqual(['self-hosted', 'dgx-spark'])
      const steps = actionSteps(wf)
      expect(steps).toHaveLength(1)
      const inputs = (steps[0].with ?? {}) as Record<string, unknown>
      expect(Object.keys(inputs).filter((name) => !(name in ACTION.inputs))).toEqual([])
      expect(inputs.config ?? ACTION.inputs.config.default).toBe('.github/llm-bench.yml')
    }
    const outputs = [...gate.text.matchAll(/steps\.[\w-]+\.outputs\.([\w-]+)/g)].map((m) => m[1])
    expect(outputs.filter((name) => !(name in ACTION.outputs))).toEqual([])
  })

  it("lists action.yml's inputs with their defaults and its outputs, in its order", () => {
    const inputs = table(README, 'input').map((r) => [unquote(r[0]), unquote(r[1])])
    expect(inputs).toEqual(Object.entries(ACTION.inputs).map(([name, i]) => [name, String(i.default ?? '')]))
    expect(table(README, 'output').map((r) => unquote(r[0]))).toEqual(Object.keys(ACTION.outputs))
  })

  it('stays a first run: at most 300 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300)
  })
})
