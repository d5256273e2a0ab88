/**
 * `prompts: text` through the bundled CLI on the simulator, over both APIs: `validate` says what the cells send,
 * `run` measures every request at exactly the input length and records the prompts in the workload, and a text
 * run against a word-list baseline of the same cells is not compared with it.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ResultsFile } from '../../src/core/results.js'
import { runCli } from '../helpers/cli.js'

const INPUT = 200

function matrix(prompts: string): string {
  return [
    'version: 1',
    'hardware: cli-sim',
    'defaults: { rounds: 2, discard: 0, confirm: 0, ready-timeout: 20s, request-timeout: 20s, quality: false }',
    'scenarios:',
    `  s: { input-tokens: ${INPUT}, output-tokens: 16, concurrency: 2, requests: 4${prompts} }`,
    'targets:',
    '  comp: { engine: sim, profile: vllm-qwen35-08b, time-scale: 2, load-time: 0ms, seed: 3 }',
    '  chat: { engine: sim, api: chat, profile: vllm-qwen35-08b, time-scale: 2, load-time: 0ms, seed: 3 }',
    '',
  ].join('\n')
}

let cwd: string
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'lbg-text-prompts-'))
  await writeFile(join(cwd, 'synthetic.yml'), matrix(''))
  await writeFile(join(cwd, 'text.yml'), matrix(', prompts: text'))
})

const results = async (dir: string) => JSON.parse(await readFile(join(cwd, dir, 'results.json'), 'utf8')) as ResultsFile

describe('prompts: text on the simulator', () => {
  it('validate prints the text prompts of each cell', async () => {
    const run = await runCli(['validate', '--config', 'text.yml'], { cwd })
    expect(run.code, run.stderr).toBe(0)
    for (const id of ['comp/s', 'chat/s'])
      expect(run.stdout).toMatch(
        new RegExp(`${id} +${INPUT} in → 16 out, concurrency 2, 4 requests/round, text prompts`),
      )
    const plain = await runCli(['validate', '--config', 'synthetic.yml'], { cwd })
    expect(plain.stdout).not.toContain('text prompts')
  })

  it('measures every request at the input length and records the prompts; a word-list baseline is not compared', async () => {
    const base = await runCli(['run', '--config', 'synthetic.yml', '--out', 'base'], { cwd, timeoutMs: 60_000 })
    expect(base.code, base.stderr).toBe(0)
    const run = await runCli(['run', '--config', 'text.yml', '--out', 'text', '--baseline-file', 'base/results.json'], {
      cwd,
      timeoutMs: 60_000,
    })
    expect(run.code, run.stderr).toBe(0)
    const baseline = await results('base')
    const text = await results('text')
    for (const file of [baseline, text]) {
      expect(file.cells.map((c) => [c.id, c.status, c.flags])).toEqual([
        ['comp/s', 'ok', []],
        ['chat/s', 'ok', []],
      ])
      for (const cell of file.cells)
        for (const round of cell.rounds) {
          expect([round.requests, round.errors], cell.id).toEqual([4, 0])
          expect(round.achieved.promptTokens, cell.id).toEqual({ min: INPUT, max: INPUT })
        }
    }
    expect(baseline.cells.map((c) => c.workload.prompts)).toEqual([undefined, undefined])
    expect(text.cells.map((c) => c.workload.prompts)).toEqual(['text', 'text'])
    for (const cell of text.cells) {
      expect(cell.verdict.status, cell.id).toBe('inconclusive')
      expect(cell.verdict.note).toContain(
        'workload changed since the baseline (prompts synthetic → text): not compared',
      )
    }
  })
})
