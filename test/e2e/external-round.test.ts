/**
 * An `engine: external` round through the bundled CLI when its command leaves something behind: a background
 * job that still holds the command's output. The round ends when `run` exits (what is left in its group is
 * stopped, the output waited for at most a moment), a cancelled run starts no further round, and `{out}` is
 * never written through a symlink a PR committed into the results directory.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/action.js'
import { CLI, runCli } from '../helpers/cli.js'

// The fixture's workload: 64 requests of 512 → 128 tokens at concurrency 8.
const RESULT = join(ROOT, 'fixtures/ingest/vllm-save-result.json')

async function setup(rounds: number, run: string): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), 'lbg-external-round-'))
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      `defaults: { rounds: ${rounds}, discard: 0, confirm: 0, request-timeout: 60s, quality: false }`,
      'scenarios:',
      '  s: { input-tokens: 512, output-tokens: 128, concurrency: 8, requests: 64 }',
      'targets:',
      `  ext: { engine: external, url: "http://127.0.0.1:9", format: vllm, run: ${JSON.stringify(run)} }`,
      '',
    ].join('\n'),
  )
  return cwd
}

/** Running, not a zombie: a killed job whose parent (bash) is gone waits for init to reap it. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

describe('engine: external rounds', () => {
  it('a background job holding the output: each round ends with run, and the job is gone', async () => {
    // Each round's job would hold the output pipe for 30 s.
    const cwd = await setup(2, `cp '${RESULT}' {out}; sleep 30 & echo $! >> pids`)
    const started = Date.now()
    const run = await runCli(['run', '--config', 'bench.yml', '--out', 'out'], { cwd, timeoutMs: 50_000 })
    const elapsed = Date.now() - started
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(elapsed).toBeLessThan(20_000)
    const pids = (await readFile(join(cwd, 'pids'), 'utf8')).trim().split('\n').map(Number)
    expect(pids).toHaveLength(2)
    expect(pids.filter(alive)).toEqual([])
    expect(run.stdout + run.stderr).toMatch(/ext\/s: round 1: run left processes in its group; stopped/)
    const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as { cells: { status: string }[] }
    expect(results.cells.map((c) => c.status)).toEqual(['ok'])
  }, 60_000)

  it('a symlinked {out} folder in the results directory is refused, and what it points at is left alone', async () => {
    const cwd = await setup(1, `cp '${RESULT}' {out}`)
    const elsewhere = await mkdtemp(join(tmpdir(), 'lbg-elsewhere-'))
    await writeFile(join(elsewhere, 'ext_s-round-1.out'), 'not yours\n')
    await mkdir(join(cwd, 'out'))
    await symlink(elsewhere, join(cwd, 'out/external'))
    const run = await runCli(['run', '--config', 'bench.yml', '--out', 'out'], { cwd, timeoutMs: 30_000 })
    expect(run.code, run.stdout + run.stderr).toBe(1)
    expect(await readFile(join(elsewhere, 'ext_s-round-1.out'), 'utf8')).toBe('not yours\n')
    const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as {
      cells: { status: string; error: string }[]
    }
    expect(results.cells[0].status).toBe('error')
    expect(results.cells[0].error).toMatch(/out\/external: is a symbolic link; refusing to write through it/)
  }, 60_000)

  it('SIGINT: no round starts after it, the cell says cancelled, exit 130', async () => {
    // A job holds the output 3 s past each round's exit; a round itself takes 0.2 s.
    const cwd = await setup(20, `cp '${RESULT}' {out}; sleep 3 & sleep 0.2`)
    const child = spawn(process.execPath, [CLI, 'run', '--config', 'bench.yml', '--out', 'out'], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    let atSignal = -1
    const collect = (d: Buffer) => {
      output += d
      if (atSignal < 0 && /round 1: /.test(output)) {
        atSignal = -2
        setTimeout(() => {
          atSignal = output.length
          child.kill('SIGINT')
        }, 1000)
      }
    }
    child.stdout.on('data', collect)
    child.stderr.on('data', collect)
    // A hang after the signal is what this catches, not a slow runner: the run ends in seconds on a quiet one.
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000)
    const code = await new Promise<number | null>((done) => child.on('close', done))
    clearTimeout(timer)
    expect(atSignal, output).toBeGreaterThan(0)
    expect(code, output).toBe(130)
    // A round's start line (its command) after the run took the signal is a round started by a cancelled run.
    // The line that says it took it is the mark: a round that began while the signal was in the pipe is not one.
    const taken = output.indexOf('received SIGINT')
    expect(taken, output).toBeGreaterThan(0)
    expect(output.slice(taken)).not.toMatch(/ext\/s: round \d+: cp /)
    const results = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as {
      cells: { status: string; error: string }[]
    }
    expect(results.cells.map((c) => [c.status, c.error])).toEqual([['error', 'cancelled']])
  }, 120_000)
})
