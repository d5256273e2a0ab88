/**
 * An engine that fails one request in 20 (HTTP 500), through the bundled CLI: its quality probe (52 requests)
 * sends a failed request again and the target is measured, instead of every cell becoming an error because
 * one probe request failed.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fakeLaunch } from '../engines/fake.js'
import { runCli } from '../helpers/cli.js'

describe('a quality probe on an engine that fails 1 request in 20', () => {
  it('retries the failed requests and measures the target', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'lbg-probe-failures-'))
    const launch = fakeLaunch('vllm', '--fail-every 20')
    await writeFile(
      join(cwd, 'bench.yml'),
      [
        'version: 1',
        'defaults: { rounds: 2, discard: 1, confirm: 0, ready-timeout: 20s, request-timeout: 20s, max-error-share: 10% }',
        'scenarios:',
        '  s: { input-tokens: 16, output-tokens: 8, concurrency: 4, requests: 8 }',
        'targets:',
        `  flaky: { engine: vllm, launch: ${JSON.stringify(launch)} }`,
        '',
      ].join('\n'),
    )
    const run = await runCli(['run', '--config', 'bench.yml', '--out', 'out'], { cwd, timeoutMs: 60_000 })
    expect(run.stdout + run.stderr).toMatch(/flaky: quality probe 40 questions \+ 12 prompts/)
    const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as {
      cells: { status: string; error: string | null; quality?: { probe?: { questions: number } } }[]
    }
    expect(results.cells.map((c) => [c.status, c.error])).toEqual([['ok', null]])
    expect(results.cells[0].quality?.probe?.questions).toBe(40)
  }, 90_000)
})
