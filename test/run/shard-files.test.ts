/** `mode: merge` reading shard files: another tool's JSON is skipped, a malformed file of ours is an error naming it. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadPlan } from '../../src/config/index.js'
import { ConfigError } from '../../src/core/errors.js'
import { memoryLogger } from '../helpers/memory-logger.js'
import type { Plan } from '../../src/core/plan.js'
import { readShardResults } from '../../src/run/shard-files.js'
import { storedCell, storedResults } from '../helpers/builders.js'

let root: string
let plan: Plan

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lbg-merge-'))
  const yml = [
    'version: 1',
    'scenarios:',
    '  a: { input-tokens: 16, output-tokens: 16, concurrency: 1 }',
    'targets:',
    '  t: { engine: openai, url: "http://127.0.0.1:9", model: m }',
    '',
  ].join('\n')
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

const good = JSON.stringify(
  storedResults('s', '2025-03-01T00:00:00Z', [storedCell('t/a', [{ decode: 50, ttft: 300 }])]),
)

describe('readShardResults', () => {
  it('skips JSON that is not ours with a warning and merges the rest', async () => {
    const dir = await shardDir({
      'results-shard-1-of-2.json': good,
      'results-shard-2-of-2.json': '{"benchmark": "other tool"}',
    })
    const log = memoryLogger()
    const { cells } = await readShardResults(dir, plan, log)
    expect(cells.map((c) => [c.id, c.status])).toEqual([['t/a', 'ok']])
    expect(
      log.lines.some((l) =>
        l.includes('shard-1/results-shard-2-of-2.json: skipped, not a llm-bench-gate/results@1 file'),
      ),
    ).toBe(true)
  })

  it('fails on a file that claims to be a results file and is malformed, naming the file and field', async () => {
    const broken = JSON.parse(good)
    broken.cells[0].metrics.decode_tps.mean = 'fast'
    const dir = await shardDir({
      'results-shard-1-of-2.json': good,
      'results-shard-2-of-2.json': JSON.stringify(broken),
    })
    const error = await readShardResults(dir, plan, memoryLogger()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toEqual([
      'shard-1/results-shard-2-of-2.json: cells[0].metrics.decode_tps.mean: expected a number, got "fast"',
    ])
  })

  it('fails on a file of ours of another kind', async () => {
    const dir = await shardDir({
      'results-shard-1-of-1.json': '{"schema": "llm-bench-gate/history@1", "hardware": "cpu", "entries": []}',
    })
    await expect(readShardResults(dir, plan, memoryLogger())).rejects.toThrow(
      'shard-1/results-shard-1-of-1.json: schema is "llm-bench-gate/history@1", expected "llm-bench-gate/results@1"',
    )
  })
})

describe('readShardResults over a split into shards', () => {
  let split: Plan
  beforeAll(async () => {
    const targets = ['t1', 't2', 't3'].map((t) => `  ${t}: { engine: openai, url: "http://127.0.0.1:9", model: m }`)
    const yml = [
      'version: 1',
      'scenarios:',
      '  a: { input-tokens: 16, output-tokens: 16, concurrency: 1 }',
      'targets:',
      ...targets,
      '',
    ].join('\n')
    await writeFile(join(root, 'split.yml'), yml)
    split = await loadPlan('split.yml', { cwd: root })
  })
  const shardFile = (i: number, n: number, startedAt: string, decode = 50) => {
    const file = storedResults('s', startedAt, [storedCell(`t${i}/a`, [{ decode, ttft: 300 }])])
    file.run.shard = `${i}/${n}`
    return JSON.stringify(file)
  }

  it('names the shards that sent nothing; their cells are errors naming the shard', async () => {
    const dir = await shardDir({
      'results-shard-1-of-3.json': shardFile(1, 3, '2025-03-01T00:00:00Z'),
      'results-shard-3-of-3.json': shardFile(3, 3, '2025-03-01T00:00:00Z'),
    })
    const log = memoryLogger()
    const merged = await readShardResults(dir, split, log)
    expect(merged.shards).toEqual({ count: 3, missing: [2] })
    expect(merged.cells.map((c) => [c.id, c.status])).toEqual([
      ['t1/a', 'ok'],
      ['t2/a', 'error'],
      ['t3/a', 'ok'],
    ])
    expect(merged.cells[1].error).toBe(
      'shard 2/3 sent no results file (its job failed or was cancelled, or its artifact was not downloaded)',
    )
    expect(log.lines.some((l) => l.includes('shard(s) 2 of 3 sent no results file'))).toBe(true)
  })

  it('a re-run attempt’s file wins over the earlier attempt’s, whatever the folder order', async () => {
    const dir = await mkdtemp(join(root, 'attempts-'))
    for (const [folder, startedAt, decode] of [
      ['b-attempt-1', '2025-03-01T00:00:00Z', 40],
      ['a-attempt-2', '2025-03-02T00:00:00Z', 60],
    ] as const) {
      await mkdir(join(dir, folder))
      await writeFile(join(dir, folder, 'results-shard-1-of-1.json'), shardFile(1, 1, startedAt, decode))
    }
    const log = memoryLogger()
    const merged = await readShardResults(
      dir,
      { ...split, targets: split.targets.slice(0, 1), cells: split.cells.slice(0, 1) },
      log,
    )
    expect(merged.cells[0].metrics?.decode_tps.mean).toBe(60)
    expect(
      log.lines.some((l) =>
        l.includes(
          't1/a: found in more than one shard file; keeping a-attempt-2/results-shard-1-of-1.json (the later run)',
        ),
      ),
    ).toBe(true)
  })

  it('keeps a shard’s skipped cells (select: changed) rather than calling them unreported', async () => {
    const file = storedResults('s', '2025-03-01T00:00:00Z', [
      storedCell('t1/a', [{ decode: 50, ttft: 300 }], {
        metrics: null,
        verdict: { status: 'missing', metrics: {}, skipped: 'unchanged' },
      }),
    ])
    file.run.shard = '1/1'
    const dir = await shardDir({ 'results-shard-1-of-1.json': JSON.stringify(file) })
    const merged = await readShardResults(
      dir,
      { ...split, targets: split.targets.slice(0, 1), cells: split.cells.slice(0, 1) },
      memoryLogger(),
    )
    expect(merged.cells[0].verdict).toMatchObject({ status: 'missing', skipped: 'unchanged' })
    expect(merged.cells[0].status).toBe('ok')
  })
})
