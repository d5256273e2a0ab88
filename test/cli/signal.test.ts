/**
 * Ctrl-C on `llm-bench-gate run` mid-stream, against an engine that ignores SIGTERM (llama-server
 * does while a stream is in flight): the CLI tears the engine's process group down as the action
 * does (SIGTERM, SIGKILL after the grace), writes the results it has and exits 130; no process of
 * the group is left. SIGTERM exits 143 the same way.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { stubbornMatrix } from '../engines/fake.js'
import { interruptCliRun } from '../helpers/interrupt-cli.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-cli-signal-'))
  await writeFile(join(cwd, 'bench.yml'), stubbornMatrix())
})

/** Starts `run` and sends `signal` once requests are streaming (the first round has started). */
const interrupted = (signal: NodeJS.Signals, out: string) =>
  interruptCliRun({
    cwd,
    args: ['run', '--config', 'bench.yml', '--out', out],
    signal,
    afterReadyMs: 1_500,
    limitMs: 40_000,
  })

describe('llm-bench-gate run cancelled by a signal', () => {
  it('Ctrl-C mid-stream: the SIGTERM-ignoring engine is killed, results are written, exit 130', async () => {
    const run = await interrupted('SIGINT', 'out-int')
    expect(run.pgid, run.output).toBeDefined()
    expect(run.output).toContain('received SIGINT')
    expect(run.output).toMatch(/did not exit within .* of SIGTERM; killed with SIGKILL/)
    expect(run.code, run.output).toBe(130)
    expect(run.groupLeft).toBe(false)
    const results = JSON.parse(await readFile(join(cwd, 'out-int/results.json'), 'utf8')) as {
      cells: { id: string; status: string }[]
    }
    expect(results.cells.map((c) => [c.id, c.status])).toEqual([['stubborn/long', 'error']])
  }, 60_000)

  it('SIGTERM: the same teardown, exit 143', async () => {
    const run = await interrupted('SIGTERM', 'out-term')
    expect(run.code, run.output).toBe(143)
    expect(run.output).toContain('received SIGTERM')
    expect(run.groupLeft).toBe(false)
  }, 60_000)
})
