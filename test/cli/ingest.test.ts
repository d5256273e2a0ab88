/**
 * `llm-bench-gate ingest` through the bundled CLI: two vLLM result files become results files, and `compare`
 * gates them — the same file passes, a 20 % TPOT loss fails; a foreign file is a usage error naming file and line.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { readResults } from '../../src/store/index.js'
import { ROOT } from '../helpers/action.js'
import { runCli } from '../helpers/cli.js'

const FIXTURES = join(ROOT, 'fixtures/ingest')
let cwd: string

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-cli-ingest-'))
  await writeFile(join(cwd, 'foreign.json'), '{"name": "not a benchmark"}\n')
})

describe('llm-bench-gate ingest', () => {
  it('writes a results file the store reads, with what vLLM could not give per cell', async () => {
    const run = await runCli(
      ['ingest', '--format', 'vllm', join(FIXTURES, 'vllm-save-result.json'), '--out', 'base.json'],
      { cwd },
    )
    expect(run.code, run.stderr).toBe(0)
    const results = readResults(await readFile(join(cwd, 'base.json'), 'utf8'), 'base.json')
    expect(results.cells.map((c) => c.id)).toEqual(['vllm-Qwen3-8B/in512-out128-c8'])
    expect(results.cells[0].ingested?.unmapped).toContain('prefill_tps: not reported')
  })

  it('prints to stdout without --out', async () => {
    const run = await runCli(['ingest', '--format', 'sglang', join(FIXTURES, 'sglang-bench-serving.jsonl')], { cwd })
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout).cells[0].rounds).toHaveLength(2)
  })

  it('compare passes the same figures and fails a 20 % TPOT loss', async () => {
    const slow = await runCli(
      ['ingest', '--format', 'vllm', join(FIXTURES, 'vllm-save-result-slow.json'), '--out', 'slow.json'],
      { cwd },
    )
    expect(slow.code, slow.stderr).toBe(0)
    await runCli(['ingest', '--format', 'vllm', join(FIXTURES, 'vllm-save-result.json'), '--out', 'same.json'], { cwd })
    const same = await runCli(['compare', 'base.json', 'same.json'], { cwd })
    expect(same.code, same.stdout + same.stderr).toBe(0)
    const worse = await runCli(['compare', 'base.json', 'slow.json'], { cwd })
    expect(worse.code, worse.stdout + worse.stderr).toBe(1)
    expect(worse.stdout).toMatch(/regress/i)
    expect(worse.stdout).toContain('vllm-Qwen3-8B')
    // TPOT 20 % longer is decode 1/1.2 − 1 = −16.7 %.
    expect(worse.stdout).toContain('−16.7%')
    expect(worse.stdout).toContain('measured by vllm; not mapped: ')
  })

  it('exits 2 on a foreign file, naming the file and line and what was expected', async () => {
    const run = await runCli(['ingest', '--format', 'vllm', 'foreign.json'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('foreign.json:1: not a vLLM bench result: missing `mean_ttft_ms`')
  })

  it('exits 2 without --format or with an unknown one', async () => {
    expect((await runCli(['ingest', 'foreign.json'], { cwd })).stderr).toContain('--format: missing')
    const unknown = await runCli(['ingest', '--format', 'locust', 'foreign.json'], { cwd })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('"locust" is not one of vllm, sglang, llama-bench, guidellm, aiperf')
  })
})
