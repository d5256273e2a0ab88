/** `mode: merge` reading shard files: another tool's JSON is skipped, a malformed file of ours is an error naming it. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadPlan } from '../src/config/index.js'
import { ConfigError } from '../src/core/errors.js'
import { memoryLogger } from '../src/core/log.js'
import type { Plan } from '../src/core/plan.js'
import { readShardResults } from '../src/merge.js'
import { cell, results } from './store/fixtures.js'

let root: string
let plan: Plan

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lbg-merge-'))
  const yml = ['version: 1', 'scenarios:', '  a: { input-tokens: 16, output-tokens: 16, concurrency: 1 }', 'targets:', '  t: { engine: openai, url: "http://127.0.0.1:9", model: m }', ''].join('\n')
  await writeFile(join(root, 'bench.yml'), yml)
  plan = await loadPlan('bench.yml', { cwd: root })
})

/** A results dir holding `files` (name → text) in a shard artifact folder. */
async function shardDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(root, 'shards-'))
  await mkdir(join(dir, 'shard-1'))
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, 'shard-1', name), text)
  return dir
}

const good = JSON.stringify(results('s', '2025-03-01T00:00:00Z', [cell('t/a', [{ decode: 50, ttft: 300 }])]))

describe('readShardResults', () => {
  it('skips JSON that is not ours with a warning and merges the rest', async () => {
    const dir = await shardDir({ 'results-shard-1-of-2.json': good, 'results-shard-2-of-2.json': '{"benchmark": "other tool"}' })
    const log = memoryLogger()
    const { cells } = await readShardResults(dir, plan, log)
    expect(cells.map((c) => [c.id, c.status])).toEqual([['t/a', 'ok']])
    expect(log.lines.some((l) => l.includes('shard-1/results-shard-2-of-2.json: skipped, not a llm-bench-gate/results@1 file'))).toBe(true)
  })

  it('fails on a file that claims to be a results file and is malformed, naming the file and field', async () => {
    const broken = JSON.parse(good)
    broken.cells[0].metrics.decode_tps.mean = 'fast'
    const dir = await shardDir({ 'results-shard-1-of-2.json': good, 'results-shard-2-of-2.json': JSON.stringify(broken) })
    const error = await readShardResults(dir, plan, memoryLogger()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toEqual(['shard-1/results-shard-2-of-2.json: cells[0].metrics.decode_tps.mean: expected a number, got "fast"'])
  })

  it('fails on a file of ours of another kind', async () => {
    const dir = await shardDir({ 'results-shard-1-of-1.json': '{"schema": "llm-bench-gate/history@1", "hardware": "cpu", "entries": []}' })
    await expect(readShardResults(dir, plan, memoryLogger())).rejects.toThrow('shard-1/results-shard-1-of-1.json: schema is "llm-bench-gate/history@1", expected "llm-bench-gate/results@1"')
  })
})
