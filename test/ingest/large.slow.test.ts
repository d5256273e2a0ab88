/**
 * Large result files through the bundled CLI: `vllm bench serve --save-detailed` over 150k requests (one value
 * per request in each array) and an `--append-result` file of 20k runs. Both are read whole and become one cell.
 * How long they take is measured by bench/ingest-size.ts, not here.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/root.js'
import { runCli } from '../helpers/cli.js'
import { detailedVllmResult } from '../../harness/ingest-files.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-ingest-large-'))
})

describe('ingest of large files', () => {
  it('150k requests of --save-detailed: one cell, its per-request lengths read (no stack overflow)', async () => {
    await writeFile(join(cwd, 'detailed.json'), JSON.stringify(detailedVllmResult(150_000)))
    const run = await runCli(['ingest', '--format', 'vllm', 'detailed.json', '--out', 'detailed-results.json'], {
      cwd,
      timeoutMs: 60_000,
    })
    expect(run.code, run.stderr).toBe(0)
    const results = JSON.parse(await readFile(join(cwd, 'detailed-results.json'), 'utf8')) as {
      cells: { status: string; flags: string[]; rounds: unknown[] }[]
    }
    expect(results.cells.map((c) => c.status)).toEqual(['ok'])
    expect(results.cells[0].rounds).toHaveLength(1)
  }, 90_000)

  it('an --append-result file of 20k runs: one cell of 20k rounds', async () => {
    const line = (await readFile(join(ROOT, 'fixtures/ingest/vllm-append-result.jsonl'), 'utf8')).trim().split('\n')[0]
    await writeFile(join(cwd, 'append.jsonl'), `${line}\n`.repeat(20_000))
    const args = ['--input-tokens', '1024', '--output-tokens', '256', '--out', 'append-results.json']
    const run = await runCli(['ingest', '--format', 'vllm', 'append.jsonl', ...args], { cwd, timeoutMs: 60_000 })
    expect(run.code, run.stderr).toBe(0)
    const results = JSON.parse(await readFile(join(cwd, 'append-results.json'), 'utf8')) as {
      cells: { rounds: unknown[] }[]
    }
    expect(results.cells.map((c) => c.rounds.length)).toEqual([20_000])
  }, 90_000)
})
