/**
 * `llm-bench-gate run` on a one-cell simulator matrix (a shipped profile, two steady rounds), then
 * against a baseline edited to be three times faster, then `compare` of the file with itself.
 */
import { readFile, writeFile, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { MetricsBlock, Stats } from '../../src/core/measurements.js'
import type { ResultsFile } from '../../src/core/results.js'
import { readResults } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-cli-run-'))
  await writeFile(
    join(cwd, 'bench.yml'),
    [
      'version: 1',
      'hardware: cli-sim',
      // Both rounds steady so each side has a spread; no confirmation re-run.
      'defaults: { rounds: 2, discard: 0, confirm: 0, ready-timeout: 20s, request-timeout: 20s }',
      'gate:',
      '  decode: { max-regression: 5% }',
      'scenarios:',
      '  tiny: { input-tokens: 32, output-tokens: 32, concurrency: 2 }',
      'targets:',
      '  small: { engine: sim, profile: vllm-qwen35-08b, time-scale: 2, load-time: 0ms, seed: 3 }',
      '',
    ].join('\n'),
  )
})

const scale = (s: Stats, k: number): Stats =>
  Object.fromEntries(
    Object.entries(s).map(([key, v]) => [key, key === 'std' ? v * Math.abs(k) : v * k]),
  ) as unknown as Stats

/** The same run with decode `factor` times as fast (TPOT divided by it), in the steady state and every round. */
function faster(file: ResultsFile, factor: number): ResultsFile {
  const edit = (m: MetricsBlock) => {
    m.decode_tps = scale(m.decode_tps, factor)
    m.tpot_ms = scale(m.tpot_ms, 1 / factor)
  }
  const copy = structuredClone(file)
  for (const cell of copy.cells) {
    if (cell.metrics) edit(cell.metrics)
    for (const round of cell.rounds) edit(round.metrics)
  }
  return copy
}

describe('llm-bench-gate run', () => {
  it('measures a simulator matrix, writes results.json and report.md and exits 0', async () => {
    const run = await runCli(['run', '--config', 'bench.yml', '--out', 'out'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    const text = await readFile(join(cwd, 'out/results.json'), 'utf8')
    const results = readResults(text, 'results.json')
    expect(results.run.hardware).toBe('cli-sim')
    expect(results.cells.map((c) => [c.id, c.status, c.rounds.length])).toEqual([['small/tiny', 'ok', 2]])
    expect(results.cells[0].metrics!.decode_tps.mean).toBeGreaterThan(0)
    const report = await readFile(join(cwd, 'out/report.md'), 'utf8')
    // The Engine column names the engine the sim profile emulates.
    expect(report).toContain('| small | tiny | vLLM (sim) |')
    expect(run.stdout).toContain('| small | tiny | vLLM (sim) |')
    expect(run.stderr).toContain('verdict: pass')
  })

  it('exits 1 against a baseline three times as fast, naming the regression', async () => {
    const measured = JSON.parse(await readFile(join(cwd, 'out/results.json'), 'utf8')) as ResultsFile
    await writeFile(join(cwd, 'fast.json'), JSON.stringify(faster(measured, 3)))
    const run = await runCli(['run', '--config', 'bench.yml', '--out', 'gated', '--baseline-file', 'fast.json'], {
      cwd,
    })
    expect(run.code, run.stderr).toBe(1)
    expect(run.stderr).toContain('verdict: regression')
    expect(run.stdout).toMatch(/regress/i)
    expect(run.stdout).toContain('small')
    const gated = readResults(await readFile(join(cwd, 'gated/results.json'), 'utf8'), 'gated')
    expect(gated.cells[0].verdict.status).toBe('regression')
    expect(gated.cells[0].verdict.metrics.decode!.delta).toBeLessThan(-0.5)
  })

  it('compare of a results file with itself exits 0', async () => {
    const run = await runCli(['compare', 'out/results.json', 'out/results.json'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('small')
  })

  it('--base that names no commit is a usage error naming the flag, before anything is launched', async () => {
    const run = await runCli(['run', '--config', 'bench.yml', '--out', 'based', '--base', 'no-such-rev'], { cwd })
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toContain('--base: "no-such-rev" does not name a commit of this checkout')
    expect(run.stdout).not.toMatch(/launched process group/)
  })
})
