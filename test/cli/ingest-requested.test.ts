/**
 * `ingest` keys a cell by the workload its run was ASKED for, through the bundled CLI and `compare`: a current run
 * whose decode is 37 % slower and whose outputs average one token short of the request (127 of 128) is the same
 * cell as its baseline and fails as a regression, instead of becoming a `new` cell beside a `missing` one that
 * nothing compares. The one-token miss is within the 1 % the length check allows (tools report per-request means),
 * so the speed decides; a run whose outputs stop at 100 of 128 is flagged and fails as a new length miss (SPEC §8).
 * A file that does not record the requested lengths is refused unless an option gives them.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { readResults } from '../../src/store/index.js'
import { ROOT } from '../helpers/action.js'
import { runCli } from '../helpers/cli.js'

const FIXTURES = join(ROOT, 'fixtures/ingest')
/** Decode 37 % slower: every per-token time is 1 / 0.63 as long, every throughput 0.63 of its figure. */
const SPEED = 0.63
let cwd: string

type Row = Record<string, unknown>

/**
 * A serving result (vLLM's or SGLang's keys) from an engine `SPEED` as fast whose outputs average `output` tokens
 * over `completed` requests. TTFT is left alone: the prompt side did not change.
 */
function slower(row: Row, output: number): Row {
  const out: Row = { ...row }
  for (const [key, value] of Object.entries(row)) {
    if (typeof value !== 'number') continue
    if (/_(tpot|itl|e2el|e2e_latency)_ms$/.test(key)) out[key] = value / SPEED
    else if (/throughput$/.test(key)) out[key] = value * SPEED
  }
  out.duration = (row.duration as number) / SPEED
  out.total_output_tokens = output * (row.completed as number)
  return out
}

const lines = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n'

async function ingest(format: string, file: string, out: string, ...options: string[]) {
  const run = await runCli(['ingest', '--format', format, file, '--out', out, ...options], { cwd })
  expect(run.code, run.stderr).toBe(0)
  return readResults(await readFile(join(cwd, out), 'utf8'), out)
}

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-ingest-requested-'))
  const vllm = JSON.parse(await readFile(join(FIXTURES, 'vllm-save-result.json'), 'utf8')) as Row
  // The recorded run asked for 512 → 128 tokens (--metadata random_input_len=512 random_output_len=128).
  expect([vllm.random_input_len, vllm.random_output_len, vllm.total_output_tokens]).toEqual(['512', '128', 64 * 128])
  const bare = Object.fromEntries(Object.entries(vllm).filter(([k]) => !k.startsWith('random_')))
  const sglang = (await readFile(join(FIXTURES, 'sglang-bench-serving.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l.replace('Infinity', '"inf"')) as Row)
  await Promise.all([
    writeFile(join(cwd, 'base.json'), JSON.stringify(vllm)),
    writeFile(join(cwd, 'slow-127.json'), JSON.stringify(slower(vllm, 127))),
    writeFile(join(cwd, 'slow-100.json'), JSON.stringify(slower(vllm, 100))),
    // The same run without its TPOT keys: no decode figure, which the baseline had.
    writeFile(
      join(cwd, 'no-tpot.json'),
      JSON.stringify(Object.fromEntries(Object.entries(vllm).filter(([k]) => !/_tpot_ms$/.test(k)))),
    ),
    writeFile(join(cwd, 'bare-base.json'), JSON.stringify(bare)),
    writeFile(join(cwd, 'bare-slow-127.json'), JSON.stringify(slower(bare, 127))),
    writeFile(join(cwd, 'sglang-base.jsonl'), lines(sglang)),
    writeFile(join(cwd, 'sglang-slow-255.jsonl'), lines(sglang.map((r) => slower(r, 255)))),
  ])
})

describe('ingest keys cells by the requested workload', () => {
  it('vLLM (lengths in --metadata): 127 of 128 tokens and 37 % slower is the same cell, and a regression', async () => {
    const base = await ingest('vllm', 'base.json', 'base-results.json')
    const current = await ingest('vllm', 'slow-127.json', 'slow-127-results.json')
    expect(current.cells.map((c) => c.id)).toEqual(base.cells.map((c) => c.id))
    expect(current.cells[0].id).toBe('vllm-Qwen3-8B/in512-out128-c8')
    expect(current.cells[0].workload).toEqual({
      inputTokens: 512,
      outputTokens: 128,
      concurrency: 8,
      requests: 64,
      rate: null,
    })
    expect(current.cells[0].rounds[0].achieved.outputTokens).toEqual({ min: 127, max: 127 })
    // 127 ≥ 128 × 0.99: within the tolerance, no flag; the speed is compared.
    expect(current.cells[0].flags).toEqual([])
    const run = await runCli(['compare', 'base-results.json', 'slow-127-results.json'], { cwd })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stdout).toMatch(/regress/i)
    expect(run.stdout).toContain('−37.0%')
    expect(run.stdout).not.toMatch(/in512-out127/)
  })

  it('a decode figure the baseline had and the current run lacks is not a pass: inconclusive, saying so', async () => {
    await ingest('vllm', 'base.json', 'base-results.json')
    const current = await ingest('vllm', 'no-tpot.json', 'no-tpot-results.json')
    expect(current.cells[0].metrics?.decode_tps.mean).toBeNull()
    const run = await runCli(['compare', 'base-results.json', 'no-tpot-results.json'], { cwd })
    expect(run.stdout).toMatch(/1 of 1 cell inconclusive/)
    expect(run.stdout).toContain('decode tok/s: not measured, cannot compare')
    expect(run.stdout).not.toMatch(/No regression/)
  })

  it('vLLM: outputs stopping at 100 of 128 are flagged, and the new length miss fails the cell', async () => {
    const current = await ingest('vllm', 'slow-100.json', 'slow-100-results.json')
    expect(current.cells[0].id).toBe('vllm-Qwen3-8B/in512-out128-c8')
    expect(current.cells[0].flags).toEqual(['lengths-missed: output 100/128'])
    const run = await runCli(['compare', 'base-results.json', 'slow-100-results.json'], { cwd })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stdout).toContain('lengths-missed: output 100/128')
  })

  it('vLLM without the metadata: refused, naming the file and what to pass; --input-tokens/--output-tokens key it', async () => {
    const refused = await runCli(['ingest', '--format', 'vllm', 'bare-slow-127.json'], { cwd })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      'bare-slow-127.json:1: a vLLM bench result does not record the requested input and output lengths; ' +
        'pass --input-tokens N --output-tokens N (or --scenario ID), ' +
        'or save them with --metadata random_input_len=N random_output_len=N',
    )
    const lengths = ['--input-tokens', '512', '--output-tokens', '128']
    await ingest('vllm', 'bare-base.json', 'bare-base-results.json', ...lengths)
    const current = await ingest('vllm', 'bare-slow-127.json', 'bare-slow-127-results.json', ...lengths)
    expect(current.cells[0].id).toBe('vllm-Qwen3-8B/in512-out128-c8')
    const run = await runCli(['compare', 'bare-base-results.json', 'bare-slow-127-results.json'], { cwd })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stdout).toContain('−37.0%')
  })

  it('--scenario names the cell of both sides', async () => {
    await ingest('vllm', 'bare-base.json', 'named-base.json', '--scenario', 'chat')
    const current = await ingest('vllm', 'bare-slow-127.json', 'named-slow.json', '--scenario', 'chat')
    expect(current.cells[0].id).toBe('vllm-Qwen3-8B/chat')
    // Nothing requested the lengths: the workload's are the achieved means, and the cell says they were not checked.
    expect(current.cells[0].workload.outputTokens).toBe(127)
    expect(current.cells[0].ingested?.unmapped).toContain(
      "achieved lengths: output not checked, none requested (the workload's is the achieved mean)",
    )
    const run = await runCli(['compare', 'named-base.json', 'named-slow.json'], { cwd })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stdout).toContain('−37.0%')
  })

  it('SGLang (random_input_len/random_output_len recorded): 255 of 256 tokens and 37 % slower is a regression', async () => {
    const base = await ingest('sglang', 'sglang-base.jsonl', 'sglang-base-results.json')
    const current = await ingest('sglang', 'sglang-slow-255.jsonl', 'sglang-slow-results.json')
    expect(current.cells.map((c) => c.id)).toEqual(base.cells.map((c) => c.id))
    expect(current.cells[0].id).toBe('sglang/in1024-out256-c16')
    const run = await runCli(['compare', 'sglang-base-results.json', 'sglang-slow-results.json'], { cwd })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stdout).toContain('−37.0%')
  })
})
