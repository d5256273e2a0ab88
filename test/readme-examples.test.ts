// The README's YAML is what users copy: every matrix file in it validates with the real engine
// adapters, and every step that uses the action passes only inputs action.yml declares and
// reads only outputs it declares.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { buildPlan } from '../src/config/index.js'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const ACTION = parse(readFileSync(new URL('../action.yml', import.meta.url), 'utf8')) as { inputs: object; outputs: object }

interface Block {
  line: number
  text: string
}

function yamlBlocks(markdown: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```yaml') continue
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```')
    blocks.push({ line: i + 1, text: lines.slice(i + 1, end).join('\n') })
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

const BLOCKS = yamlBlocks(README).map((b) => ({ ...b, data: parse(b.text) as unknown }))
const isMatrix = (data: unknown) => mappings(data).length > 0 && ['targets', 'defaults', 'scenarios'].some((k) => k in (data as object))
const MATRICES = BLOCKS.filter((b) => isMatrix(b.data))
const ACTION_STEPS = BLOCKS.flatMap((b) => mappings(b.data).filter((m) => String(m.uses ?? '').includes('/llm-bench-gate@')).map((step) => ({ ...b, step })))

/** An excerpt gets what a whole file needs around it: the version, one scenario, one target. */
function wholeFile(data: Record<string, unknown>): Record<string, unknown> {
  return {
    version: 1,
    scenarios: { s: { 'input-tokens': 16, 'output-tokens': 4 } },
    targets: { t: { engine: 'vllm', launch: 'vllm serve m --port {port}' } },
    ...data,
  }
}

describe('README examples', () => {
  it('finds the matrix files and action steps it checks', () => {
    // Guards the checks below: a README whose blocks were no longer found would prove nothing.
    expect(MATRICES.length).toBeGreaterThanOrEqual(5)
    expect(ACTION_STEPS.length).toBeGreaterThanOrEqual(6)
    expect(MATRICES.filter((b) => (b.data as { version?: number }).version === 1).length).toBeGreaterThanOrEqual(2)
  })

  it.each(MATRICES.map((b) => [b.line, b] as const))('the matrix file at README.md:%i validates', (line, block) => {
    const data = block.data as Record<string, unknown>
    expect(() => buildPlan(data.version === 1 ? data : wholeFile(data), { configPath: `README.md:${line}`, resolvedPath: '/repo/.github/llm-bench.yml' })).not.toThrow()
  })

  it.each(ACTION_STEPS.map((s) => [s.line, s] as const))('the action step at README.md:%i passes only declared inputs', (_line, { step }) => {
    const inputs = Object.keys((step.with ?? {}) as object)
    expect(inputs.filter((name) => !(name in ACTION.inputs))).toEqual([])
  })

  it('reads only declared outputs of the action', () => {
    const used = [...README.matchAll(/steps\.[\w-]+\.outputs\.([\w-]+)/g)].map((m) => m[1])
    expect(used.filter((name) => !(name in ACTION.outputs))).toEqual([])
  })
})
