/**
 * The output quality guard on the real llama.cpp server, through the bundled CLI: a run with the
 * probe on becomes the baseline; a second launch of the same model agrees with it fully (greedy
 * outputs are reproducible across launches, probe requests four at a time on four slots); the
 * server launched with another model of the same vocabulary (the draft model: several times faster,
 * different text) fails on agreement although every speed figure improved.
 *
 * The tiny models answer no question right, so accuracy is 0 % on every side and never the reason:
 * that is the "weak on both sides passes" rule on a real engine, said out loud (the probe cannot see
 * wrong answers there, and every reply ran to max-tokens by the server's own usage count). Speed limits are wide here: two
 * launches on a shared 2-core machine differ by tens of percent, and this file is about the text.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { runCli } from '../helpers/cli.js'
import { llamaCpp } from './prereq.js'

const llama = llamaCpp()
const LIMIT_MS = 240_000

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-real-quality-'))
})

async function config(name: string, model: string): Promise<string> {
  const launch = `'${llama.server}' -m '${model}' --port {port} -c 4096 -np 4 -t 1 --metrics`
  const lines = [
    'version: 1',
    'hardware: real-llamacpp',
    'defaults: { rounds: 2, discard: 1, confirm: 0, ready-timeout: 60s, request-timeout: 60s, quality: { questions: 8, prompts: 4, concurrency: 4 } }',
    'gate:',
    '  decode: { max-regression: 50% }',
    '  ttft: { max-regression: 100%, min-delta: 1s }',
    'scenarios:',
    '  s: { input-tokens: 32, output-tokens: 32, concurrency: 2, requests: 6 }',
    'targets:',
    `  llama: { engine: llamacpp, model: tiny, launch: ${JSON.stringify(launch)} }`,
    '',
  ]
  await writeFile(join(cwd, name), lines.join('\n'))
  return name
}

async function run(file: string, out: string, baseline?: string) {
  const args = ['run', '--config', file, '--out', out, ...(baseline ? ['--baseline-file', baseline] : [])]
  const ran = await runCli(args, { cwd, timeoutMs: LIMIT_MS })
  const results = JSON.parse(await readFile(join(cwd, out, 'results.json'), 'utf8')) as ResultsFile
  return { ...ran, cell: results.cells[0], output: ran.stdout + ran.stderr }
}

describe('the quality guard on the real llama-server', () => {
  it(
    'the same model agrees with its baseline; another model, much faster, fails on agreement',
    async () => {
      const healthy = await config('healthy.yml', llama.model)
      const base = await run(healthy, 'base')
      expect(base.code, base.output).toBe(0)
      const probe = base.cell.quality?.probe
      // Four greedy prompts and the two benchmark-shaped requests.
      expect([probe?.questions, probe?.greedy.length, probe?.accuracy]).toEqual([8, 6, 0])
      expect(base.output).toMatch(
        /llama: quality probe 8 questions \+ 4 prompts \+ 2 benchmark-shaped in [\d.]+m?s: accuracy 0%/,
      )
      // The tiny model never stops on its own: by the server's usage count every reply reached max-tokens.
      expect(probe?.cut).toBe(8)
      console.log(base.output.match(/quality probe .*/)?.[0])

      const again = await run(healthy, 'again', 'base/results.json')
      expect(again.code, again.output).toBe(0)
      // The real server repeats its greedy outputs, the benchmark-shaped ones (each alone in its batch) too.
      expect(again.cell.quality?.agreement).toEqual({ mean: 1, prompts: 6 })
      expect(again.cell.quality?.probe?.accuracy).toBe(0)
      expect(again.cell.verdict?.status).not.toBe('regression')
      expect(again.cell.verdict?.note).toContain(
        'accuracy 0% (baseline 0%): too few right answers for the probe to see wrong ones; 8 of 8 replies reached max-tokens',
      )

      const other = await run(await config('other.yml', llama.draft), 'other', 'base/results.json')
      expect(other.code, other.output).toBe(1)
      expect(other.cell.verdict?.status).toBe('regression')
      expect(other.cell.verdict?.metrics.decode?.status).toBe('improvement')
      expect(other.cell.quality?.agreement?.mean).toBeLessThan(0.8)
      expect(other.cell.verdict?.failures?.join('\n')).toMatch(
        /^agreement 0\.\d\d with the baseline's greedy outputs \(min 0\.8\); worst prompt: ".+" shares \d+ of \d+ tokens/m,
      )
      expect(other.cell.verdict?.failures?.join('\n')).not.toMatch(/accuracy/)
      console.log(
        `other model: ${other.cell.verdict?.metrics.decode?.reason}; ${other.cell.verdict?.failures?.join('; ')}`,
      )
    },
    3 * LIMIT_MS,
  )
})
