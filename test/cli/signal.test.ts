/**
 * Ctrl-C on `llm-bench-gate run` mid-stream, against an engine that ignores SIGTERM (llama-server
 * does while a stream is in flight): the CLI tears the engine's process group down as the action
 * does (SIGTERM, SIGKILL after the grace), writes the results it has and exits 130; no process of
 * the group is left. SIGTERM exits 143 the same way.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { groupAlive } from '../../src/server/process-group.js'
import { fakeLaunch } from '../engines/fake.js'
import { CLI } from '../helpers/cli.js'
import { killGroupQuietly } from '../server/procs.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-cli-signal-'))
  // 300 tokens at 10 ms: each request streams for about 3 s, so the signal lands mid-stream.
  const launch = fakeLaunch('llamacpp', '--ignore-sigterm --ttft-ms 5 --itl-ms 10')
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'hardware: cli-signal',
      'defaults: { rounds: 1, discard: 0, confirm: 0, ready-timeout: 20s, request-timeout: 20s, quality: false }',
      'scenarios:',
      '  long: { input-tokens: 16, output-tokens: 300, concurrency: 2, requests: 4 }',
      'targets:',
      `  stubborn: { engine: llamacpp, launch: ${JSON.stringify(launch)} }`,
      '',
    ].join('\n'),
  )
})

/** Starts `run`, sends `signal` once a request is streaming, and returns the exit code, output and the engine's group. */
async function interrupted(signal: NodeJS.Signals, out: string) {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? cwd }
  const child = spawn(process.execPath, [CLI, 'run', '--config', 'bench.yml', '--out', out], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  let pgid: number | undefined
  let signalled = false
  const onData = (d: Buffer) => {
    output += d.toString()
    pgid ??= Number(/launched process group (\d+)/.exec(output)?.[1]) || undefined
    // The first round has started: requests are streaming.
    if (!signalled && /ready at/.test(output)) {
      signalled = true
      setTimeout(() => child.kill(signal), 1_500)
    }
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const killer = setTimeout(() => child.kill('SIGKILL'), 40_000)
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)))
  clearTimeout(killer)
  // Whether anything of the group outlived the CLI, looked at before the test cleans up after itself.
  const leftOver = pgid !== undefined && groupAlive(pgid)
  if (pgid) killGroupQuietly(pgid)
  return { code, output, pgid, leftOver }
}

describe('llm-bench-gate run cancelled by a signal', () => {
  it('Ctrl-C mid-stream: the SIGTERM-ignoring engine is killed, results are written, exit 130', async () => {
    const run = await interrupted('SIGINT', 'out-int')
    expect(run.pgid, run.output).toBeDefined()
    expect(run.output).toContain('received SIGINT')
    expect(run.output).toMatch(/did not exit within .* of SIGTERM; killed with SIGKILL/)
    expect(run.code, run.output).toBe(130)
    expect(run.leftOver).toBe(false)
    const results = JSON.parse(await readFile(join(cwd, 'out-int/results.json'), 'utf8')) as { cells: { id: string; status: string }[] }
    expect(results.cells.map((c) => [c.id, c.status])).toEqual([['stubborn/long', 'error']])
  }, 60_000)

  it('SIGTERM: the same teardown, exit 143', async () => {
    const run = await interrupted('SIGTERM', 'out-term')
    expect(run.code, run.output).toBe(143)
    expect(run.output).toContain('received SIGTERM')
    expect(run.leftOver).toBe(false)
  }, 60_000)
})
