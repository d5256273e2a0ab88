/**
 * A FIFO where the run expects a file blocks a plain read forever, and SIGTERM does not end the wait. Every
 * file the CLI and the action read (the matrix file, a baseline file, the files `compare` and `ingest` take,
 * an external target's `{out}`) is refused at once instead, naming the path and what it is.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-fifo-'))
  execFileSync('mkfifo', [join(cwd, 'fifo.json')])
  const matrix = (target: string) =>
    [
      'version: 1',
      'scenarios:',
      '  s: { input-tokens: 16, output-tokens: 4, concurrency: 1 }',
      'targets:',
      target,
      '',
    ].join('\n')
  await writeFile(join(cwd, 'sim.yml'), matrix('  t: { engine: sim, profile: vllm-qwen35-08b }'))
  // The command makes {out} a FIFO and leaves without writing to it.
  await writeFile(
    join(cwd, 'external.yml'),
    matrix('  ext: { engine: external, url: "http://127.0.0.1:9", format: vllm, run: "mkfifo {out}" }'),
  )
})

const REFUSED = /a FIFO, not a regular file/

describe('a FIFO is refused, not waited on', () => {
  it.each([
    ['validate --config', ['validate', '--config', 'fifo.json']],
    ['run --baseline-file', ['run', '--config', 'sim.yml', '--baseline-file', 'fifo.json', '--out', 'out-baseline']],
    ['compare', ['compare', 'fifo.json', 'fifo.json']],
    ['ingest', ['ingest', '--format', 'vllm', 'fifo.json']],
  ])('%s: exit 2 at once, naming the file', async (_what, args) => {
    const started = Date.now()
    const run = await runCli(args, { cwd, timeoutMs: 15_000 })
    expect(run.code, run.stdout + run.stderr).toBe(2)
    expect(run.stdout + run.stderr).toMatch(REFUSED)
    expect(run.stdout + run.stderr).toContain('fifo.json')
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("an external target's {out}: the cell is an error naming it, the run ends", async () => {
    const run = await runCli(['run', '--config', 'external.yml', '--out', 'out-external'], { cwd, timeoutMs: 30_000 })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    const results = JSON.parse(await readFile(join(cwd, 'out-external/results.json'), 'utf8')) as {
      cells: { status: string; error: string }[]
    }
    expect(results.cells.map((c) => c.status)).toEqual(['error'])
    expect(results.cells[0].error).toMatch(REFUSED)
  })
})
