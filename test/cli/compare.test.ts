/**
 * `llm-bench-gate compare BASELINE CURRENT` on results files built round by round: no change passes,
 * a 20 % decode loss (TPOT up 25 %) is a regression, a malformed file is a usage error naming the
 * file and the field. Without --config the built-in gate applies.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/action.js'
import { runCli } from '../helpers/cli.js'
import { storedCell, storedResults } from '../helpers/builders.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-cli-compare-'))
  // Steady rounds 1 % apart: a spread narrow enough that a 20 % change is far beyond noise.
  const run = (sha: string, decode: number) =>
    storedResults(sha, '2025-03-01T00:00:00Z', [
      storedCell('engine-a/chat', [
        { decode, ttft: 300 },
        { decode: decode * 1.01, ttft: 303 },
      ]),
      storedCell('engine-b/chat', [
        { decode: 80, ttft: 200 },
        { decode: 80.8, ttft: 202 },
      ]),
    ])
  const malformed = run('c0ffee', 50) as any
  malformed.cells[1].metrics.ttft_ms.p99 = 'fast'
  await Promise.all([
    writeFile(join(cwd, 'base.json'), JSON.stringify(run('base', 50))),
    writeFile(join(cwd, 'same.json'), JSON.stringify(run('same', 50))),
    writeFile(join(cwd, 'slow.json'), JSON.stringify(run('slow', 40))),
    writeFile(join(cwd, 'malformed.json'), JSON.stringify(malformed)),
  ])
})

describe('llm-bench-gate compare', () => {
  it('passes and exits 0 when nothing changed', async () => {
    const run = await runCli(['compare', 'base.json', 'same.json'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('engine-a')
    expect(run.stdout).not.toMatch(/regressed|Regression in/)
  })

  it('exits 1 on a 20 % decode loss and names the regressed cell', async () => {
    const run = await runCli(['compare', 'base.json', 'slow.json'], { cwd })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(run.stdout).toMatch(/regress/i)
    expect(run.stdout).toMatch(/engine-a.*chat/)
    expect(run.stdout).toContain('−20.0%')
  })

  it('exits 2 on a malformed results file, naming the file and the field', async () => {
    const run = await runCli(['compare', 'base.json', 'malformed.json'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stdout + run.stderr).toContain(
      'malformed.json: cells[1].metrics.ttft_ms.p99: expected a number, got "fast"',
    )
  })

  it('exits 2 naming a file that does not exist', async () => {
    const run = await runCli(['compare', 'base.json', 'absent.json'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stdout + run.stderr).toContain('absent.json')
  })

  it('exits 2 without two files', async () => {
    const run = await runCli(['compare', 'base.json'], { cwd })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('BASELINE CURRENT')
  })

  it('reads a baseline written by the first release', async () => {
    const demo = join(ROOT, 'fixtures/demo-baseline.json')
    const run = await runCli(['compare', demo, demo], { cwd })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('qwen36-35b-a3b-nvfp4-vllm')
  })
})
